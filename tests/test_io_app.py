"""The Data page shows the encoding a text file was read as and lets the user choose another (AppTest)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from evalcore.io import read_table
from evalcore.io.store import DatasetStore

APP = str(Path(__file__).resolve().parents[1] / "app.py")
CONTENT = ("PP,verb,score,label\n„in Frage“,kommen,1.5,TRUE\nfür 5 €,zahlen,0.5,FALSE\nab,geben,2,TRUE\n"
           ).encode("cp1252")


@pytest.fixture(autouse=True)
def store_root(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_STORE", str(tmp_path / "store"))
    monkeypatch.delenv("EVALCORE_DEFAULT_DATASET", raising=False)
    return tmp_path / "store"


def test_detected_encoding_shown_and_overridden():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.file_uploader[0].set_value(("quotes.csv", CONTENT, "text/csv")).run()
    assert not at.exception and not at.error
    original = at.session_state["view"].dataset
    choice = next(s for s in at.selectbox if s.key.startswith("w_encoding_"))
    assert choice.value == "cp1252" and "Text encoding" in choice.label
    assert "„in Frage“" in at.dataframe[-1].value.to_string()

    choice.set_value("latin-1").run()  # the user says: Latin-1
    assert not at.exception and not at.error
    recoded = at.session_state["view"].dataset
    assert recoded != original
    stored = DatasetStore().get(recoded)
    assert stored.name == "quotes.csv"
    table = read_table(stored.read_bytes(), name=stored.name)
    assert table.attrs["encoding"] == "utf-8" and table["PP"][1] == "\x84in Frage\x93"
    assert next(s for s in at.selectbox if s.key.startswith("w_encoding_")).value == "latin-1"
    assert {m.label: m.value for m in at.metric}["Candidates N"] == "3"
