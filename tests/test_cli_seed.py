"""The command line's default seed is the data's own (issue 30): the first 32 bits of the SHA-256 of the file (of the
table several files make; of a folder of Parquet parts, of its parts' list), the seed the dashboard opens the same
data with, so a first visit and a command give the same numbers; the signature names it, and signatures made before
(with a seed of their own, or none for a resampling test) keep their numbers."""

from __future__ import annotations

import argparse
import hashlib
import io
import re
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

from evalcore import cli_steps
from evalcore.cli import main
from evalcore.io import combine_samples
from evalcore.ranking import data_seed
from evalcore.report.signature import file_sha256


def run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def test_data_seed_is_the_first_32_bits_of_the_sha256():
    sha = hashlib.sha256(b"test").hexdigest()  # 9f86d081...
    assert data_seed(sha) == 0x9F86D081 == 2676412545
    for bad in ("9F86D081" + sha[8:], sha[:63], "server:x", None):
        with pytest.raises(Exception, match="64 lower-case hexadecimal digits"):
            data_seed(bad)


def test_compare_without_a_seed_uses_the_datas_own(krenn_tsv):
    own = data_seed(file_sha256(krenn_tsv))
    argv = ["compare", krenn_tsv, "--measure", "log.like", "--measure", "chisq", "--n", "100:2000:100"]
    code, first, err = run(*argv)
    assert code == 0 and f"with seed {own} (pass --seed {own} to repeat)" in err  # main: a fresh one each run
    assert run(*argv)[1] == first == run(*argv, "--seed", own)[1]
    assert run(*argv, "--seed", own + 1)[1] != first  # (the seed matters: random ties by default)
    code, _, err = run(*argv, "--signature", "-")
    signature = re.search(r"signature: (.*)", err).group(1)
    assert f"|seed {own}|" in signature
    code, out, _ = run("reproduce", signature, krenn_tsv)
    assert code == 0 and out.rstrip().endswith("reproduced")


def test_a_signature_made_before_keeps_its_numbers(krenn_tsv):
    # a resampling test's signature made before issue 30 named no seed: the resamples' seed was 0
    argv = ["compare", krenn_tsv, "--measure", "log.like", "--measure", "chisq", "--n", "500,1000", "--ties", "stable",
            "--test", "bootstrap", "--resamples", "200"]
    code, _, err = run(*argv, "--seed", "0", "--signature", "-")
    old = re.search(r"signature: (.*)", err).group(1).replace("|seed 0|", "|")
    assert "seed" not in old.split("|numbers")[0].split("cmd compare")[1]
    code, out, _ = run("reproduce", old, krenn_tsv)
    assert code == 0 and "numbers: match" in out
    code, _, err = run(*argv, "--seed", "7", "--signature", "-")  # and one with its own seed
    code, out, _ = run("reproduce", re.search(r"signature: (.*)", err).group(1), krenn_tsv)
    assert code == 0 and "numbers: match" in out


def test_several_files_are_seeded_as_the_dashboard_seeds_them_uploaded_together(tmp_path):
    rng = np.random.default_rng(4)
    paths = []
    for name in ("s1.tsv", "s2.tsv"):
        tp = rng.random(60) < 0.3
        frame = pd.DataFrame({"is_tp": tp, "a": np.round(rng.normal(tp, 1), 1), "b": np.round(rng.normal(tp, 1), 1)})
        frame.to_csv(tmp_path / name, sep="\t", index=False)
        paths.append(tmp_path / name)
    combined, _ = combine_samples([(p.read_bytes(), p.name) for p in paths])  # what the Data page stores
    own = data_seed(hashlib.sha256(combined).hexdigest())
    code, _, err = run("validate", *paths, "--cut", "n", "--n", "20")
    assert code == 0 and f"with seed {own}" in err


def test_a_folder_of_parts_is_seeded_by_its_parts(tmp_path):
    folder = tmp_path / "parts"
    folder.mkdir()
    for i in range(2):
        (folder / f"part-{i}.parquet").write_bytes(f"part {i}".encode())
    listing = "".join(f"part-{i}.parquet\t{hashlib.sha256(f'part {i}'.encode()).hexdigest()}\n" for i in range(2))
    args = argparse.Namespace(file=str(folder), files=None, limit=[])
    assert cli_steps.data_sha256(args) == hashlib.sha256(listing.encode()).hexdigest()
    args = argparse.Namespace(file=str(folder / "part-0.parquet"), files=None, seed=None, ties="hash", limit=[])
    cli_steps.default_seed(args)
    assert args.seed == data_seed(file_sha256(folder / "part-0.parquet"))
    args = argparse.Namespace(file=str(folder / "part-0.parquet"), seed=None, ties="stable", test="fisher")
    cli_steps.default_seed(args)
    assert args.seed is None  # no number depends on it
