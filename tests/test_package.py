"""The package's own files (issue 32): the extras and the pins that a clone installs, the app's files in the wheel
and the sdist, the one-line message of a feature whose extra is missing, the store's place, the Dockerfile.

What a user does with the package (a wheel installed into fresh environments, with one extra after another, the
container's steps replayed, the dashboard in Chromium) is tests/test_install.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import wheels
from evalcore import extras
from evalcore.io.store import default_root, user_data_dir

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
RUNTIME_EXTRAS = ("text", "app")  # what requirements.txt pins: evalcore[app], and [text] with it
TEST_EXTRAS = ("spark", "test")  # what requirements-test.txt adds


def pins(name: str) -> dict[str, str]:
    """``{canonical name: version}`` of a requirements file (one ``name==version`` a line, comments after #)."""
    out = {}
    for line in (REPO / name).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            req = Requirement(line)
            (spec,) = req.specifier
            assert spec.operator == "==", f"{name}: {line!r} is not pinned with =="
            out[canonicalize_name(req.name)] = spec.version
    return out


def direct(extra: str | None) -> list[Requirement]:
    """The package's own requirements of the core (None) or of an extra, without its references to itself."""
    listed = PYPROJECT["project"]["dependencies"] if extra is None else PYPROJECT["project"]["optional-dependencies"][extra]
    return [r for r in map(Requirement, listed) if canonicalize_name(r.name) != "evalcore"]


def closure(requirements: list[Requirement]) -> set[str]:
    """Every distribution these requirements bring in this environment (installed metadata, markers evaluated)."""
    seen: set[tuple[str, str]] = set()  # (name, extra asked for; "" for the distribution itself)
    todo = list(requirements)
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        asked = [e for e in ("", *sorted(req.extras)) if (name, e) not in seen]
        if not asked:
            continue
        seen.update((name, e) for e in asked)
        try:
            needs = metadata.requires(req.name) or []
        except metadata.PackageNotFoundError:  # (not for this platform, or the package itself from a clone)
            needs = []
        if name == "evalcore":  # the package itself: its requirements as pyproject.toml states them
            needs = [str(r) for e in asked for r in direct(e or None)] + \
                [r for e in asked if e for r in PYPROJECT["project"]["optional-dependencies"][e] if "evalcore[" in r]
        for text in needs:
            sub = Requirement(text)
            if sub.marker is None or any(sub.marker.evaluate({**default_environment(), "extra": e}) for e in asked):
                todo.append(sub)
    return {name for name, _ in seen}


def test_every_dependency_is_pinned_for_a_clone_in_its_range():
    runtime, test = pins("requirements.txt"), pins("requirements-test.txt")
    assert not set(runtime) & set(test), "a package is pinned twice"
    for extra in (None, *RUNTIME_EXTRAS):
        for req in direct(extra):
            name = canonicalize_name(req.name)
            assert name in runtime, f"{req.name} ([{extra or 'core'}]) is not pinned in requirements.txt"
            assert req.specifier.contains(runtime[name]), f"requirements.txt pins {name}=={runtime[name]}, outside " \
                                                          f"pyproject.toml's {req}"
    for extra in TEST_EXTRAS:
        for req in direct(extra):
            name = canonicalize_name(req.name)
            pinned = test.get(name, runtime.get(name))
            assert pinned is not None, f"{req.name} ([{extra}]) is pinned in neither requirements file"
            assert req.specifier.contains(pinned), f"the pin {name}=={pinned} is outside pyproject.toml's {req}"


def test_requirements_txt_is_the_runtime_and_the_test_file_only_adds():
    """requirements.txt pins only what evalcore[app] brings (so ./dev run installs the runtime and nothing more);
    requirements-test.txt only what the runtime does not bring (so ./dev test never changes a runtime version)."""
    runtime_closure = closure([Requirement("evalcore[app]")]) - {"evalcore"}
    test_closure = closure([Requirement("evalcore[test]")]) - {"evalcore"}
    extra_runtime = sorted(set(pins("requirements.txt")) - runtime_closure)
    assert not extra_runtime, (f"requirements.txt pins {extra_runtime}, which evalcore[app] does not bring: add them "
                               "to an extra in pyproject.toml, or pin a test tool in requirements-test.txt")
    for name in pins("requirements-test.txt"):
        assert name not in runtime_closure, f"{name} comes with the runtime: pin it in requirements.txt"
        assert name in test_closure, f"requirements-test.txt pins {name}, which no [spark] or [test] brings"
    # the installed versions are the pinned ones (./dev installs both files)
    for name, version in {**pins("requirements.txt"), **pins("requirements-test.txt")}.items():
        assert metadata.version(name) == version, f"{name} {metadata.version(name)} installed, {version} pinned"


def test_the_extras_table_names_each_extras_modules():
    """evalcore.extras (what a command checks before it imports) says what pyproject.toml's extras bring."""
    for extra, modules in extras.EXTRAS.items():
        assert set(modules) == {canonicalize_name(r.name).replace("-", "_") for r in direct(extra)}, extra
    assert set(PYPROJECT["project"]["optional-dependencies"]) == {*extras.EXTRAS, "all", "test"}
    assert PYPROJECT["project"]["optional-dependencies"]["app"][0] == "evalcore[text]"  # the Systems page's metrics
    assert PYPROJECT["project"]["optional-dependencies"]["all"] == ["evalcore[app,spark]"]


# A program that cannot import the given top-level modules (as if not installed), then runs the command line.
WITHOUT = """
import importlib.abc, sys
hidden = set(sys.argv[1].split(","))
class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in hidden:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Hide())
import importlib.util
real = importlib.util.find_spec
importlib.util.find_spec = lambda name, *a: None if name.split(".")[0] in hidden else real(name, *a)
from evalcore.cli import main
raise SystemExit(main(sys.argv[2:]))
"""


TEXT = ",".join(extras.EXTRAS["text"])


@pytest.mark.parametrize("hidden, args, extra", [
    (TEXT, ["systems", "--refs", "R", "--hyps", "A", "B"], "text"),
    ("rouge_score,nltk", ["systems", "--refs", "R", "--hyps", "A", "B", "--metric", "rouge1"], "text"),
    ("ir_measures", ["systems", "--qrels", "Q", "--runs", "A.run", "B.run"], "text"),
    ("streamlit,authlib,httpx", ["app", "--server.port", "1"], "app"),
    ("pyspark", ["curves", "S", "--engine", "spark", "--ties", "hash"], "spark"),
])
def test_a_command_whose_extra_is_missing_says_which_in_one_line(tmp_path, hidden, args, extra):
    """Any module of the extra missing (here: all of [text], or only ROUGE's, or only the TREC measures'), the
    command says in one line which extra to install, before it reads a file."""
    sample = REPO / "sample_data" / "collocations_sim.tsv"
    (tmp_path / "R").write_text("a b c\n")
    (tmp_path / "A").write_text("a b c\n")
    (tmp_path / "B").write_text("a b d\n")
    (tmp_path / "Q").write_text("1 0 d1 1\n1 0 d2 0\n")
    (tmp_path / "A.run").write_text("1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n")
    (tmp_path / "B.run").write_text("1 Q0 d2 1 2.0 b\n1 Q0 d1 2 1.0 b\n")
    args = [str(sample) if a == "S" else a for a in args]
    done = subprocess.run([sys.executable, "-c", WITHOUT, hidden, *args], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    line = done.stderr.strip()
    assert "\n" not in line and "Traceback" not in line, done.stderr
    assert line.startswith("evalcore: error: ") and line.endswith(f'pip install "evalcore[{extra}]"'), line
    assert f"needs the [{extra}] extra" in line
    named = re.search(r"extra \((.*) (?:is|are) not installed\)", line)
    assert named and named.group(1).split(", ") == hidden.split(","), line  # the missing ones, and only those


def test_a_per_item_table_needs_no_extra(tmp_path):
    table = tmp_path / "items.csv"
    table.write_text("item,A.tp,A.fp,A.fn,B.tp,B.fp,B.fn\n" + "".join(f"{i},{i % 3},{i % 2},1,{i % 4},0,1\n"
                                                                       for i in range(40)))
    done = subprocess.run([sys.executable, "-c", WITHOUT, TEXT, "systems", str(table), "--resamples",
                           "100", "--json", "-"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert '"metric": "f1"' in done.stdout


def test_the_missing_extra_error_is_an_import_error_too():
    error = extras.MissingExtraError("x")
    assert isinstance(error, ImportError) and isinstance(error, ValueError)


# ---------------------------------------------------------------- where the store lives

def test_the_store_is_the_environments_choice_else_a_clones_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("EVALCORE_STORE", str(tmp_path / "chosen"))
    assert default_root() == tmp_path / "chosen"
    monkeypatch.delenv("EVALCORE_STORE")
    assert default_root() == REPO / "data" / "store"  # a clone keeps README's data/store (installed: test_install.py)


@pytest.mark.parametrize("platform, environ, expected", [
    ("linux", {"HOME": "/home/ann"}, "/home/ann/.local/share/evalcore"),
    ("linux", {"HOME": "/home/ann", "XDG_DATA_HOME": "/srv/xdg"}, "/srv/xdg/evalcore"),
    ("linux", {"HOME": "/home/ann", "XDG_DATA_HOME": "relative"}, "/home/ann/.local/share/evalcore"),  # (XDG: ignored)
    ("freebsd14", {"HOME": "/home/ann", "XDG_DATA_HOME": ""}, "/home/ann/.local/share/evalcore"),
    ("darwin", {"HOME": "/Users/ann"}, "/Users/ann/Library/Application Support/evalcore"),
    ("win32", {"HOME": "C:/Users/ann", "LOCALAPPDATA": "C:/Users/ann/AppData/Local"},
     "C:/Users/ann/AppData/Local/evalcore"),
])
def test_the_users_data_folder_is_where_each_system_keeps_it(platform, environ, expected):
    assert user_data_dir(environ, platform) == Path(expected)


# ---------------------------------------------------------------- the app's files

def test_the_apps_main_script_pages_settings_and_sample_are_links_into_the_clone():
    """evalcore_app/dashboard/ and evalcore_app/sample_data are links to the clone's app.py, pages/,
    .streamlit/config.toml and sample_data/ (one copy of each), which the wheel holds as files."""
    app = REPO / "evalcore_app"
    for link, target in [(app / "dashboard" / "app.py", REPO / "app.py"),
                         (app / "dashboard" / "pages", REPO / "pages"),
                         (app / "dashboard" / ".streamlit" / "config.toml", REPO / ".streamlit" / "config.toml"),
                         (app / "sample_data", REPO / "sample_data")]:
        assert link.is_symlink() and link.resolve() == target.resolve(), link
        assert not os.path.isabs(os.readlink(link)), f"{link} must be a relative link (a clone anywhere)"


def test_the_core_never_imports_streamlit():
    for path in (REPO / "evalcore").rglob("*.py"):
        text = path.read_text()
        assert "import streamlit" not in text and "from streamlit" not in text, path
        imports = "import evalcore_app" in text or "from evalcore_app" in text
        assert not imports or path.name == "cli.py", path  # (only `evalcore app` starts the app)


def test_the_dockerfile_serves_the_app_as_promised():
    """What the replay in test_install.py cannot see: the base image, Debian's chromium, the user, the volume."""
    text = (REPO / "Dockerfile").read_text().replace("\\\n", " ")  # (continued lines joined)
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    froms = [line.split()[1] for line in lines if line.startswith("FROM ")]
    assert froms and all(f.startswith("debian:") and f.endswith("-slim") for f in froms)
    final = lines[max(i for i, line in enumerate(lines) if line.startswith("FROM ")):]
    apt = next(line for line in final if "apt-get install" in line)
    assert " chromium " in apt + " " and "python3-venv" in apt
    assert any(line.startswith("USER ") and line.split()[1] not in ("root", "0") for line in final)
    assert "VOLUME /data" in final and "ENV EVALCORE_STORE=/data/store" in final
    health = next(line for line in final if line.startswith("HEALTHCHECK "))
    assert "_stcore/health" in health
    assert final[-1].startswith('CMD ["evalcore", "app"')
    ignored = (REPO / ".dockerignore").read_text().split()
    assert ".streamlit/secrets.toml" in ignored and ".venv" in ignored


@pytest.fixture(scope="module")
def package_wheel(tmp_path_factory) -> Path:
    return wheels.build_wheel(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_holds_the_app_and_never_a_secret(package_wheel):
    with zipfile.ZipFile(package_wheel) as whl:
        names = set(whl.namelist())
        assert {n.split("/")[0] for n in names} == {"evalcore", "evalcore_app", "evalcore-0.1.0.dist-info"}
        for page in (REPO / "pages").glob("*.py"):
            assert whl.read(f"evalcore_app/dashboard/pages/{page.name}") == page.read_bytes()
        assert whl.read("evalcore_app/dashboard/app.py") == (REPO / "app.py").read_bytes()
        assert whl.read("evalcore_app/dashboard/.streamlit/config.toml") == \
            (REPO / ".streamlit" / "config.toml").read_bytes()  # the project's settings, the same file
        for sample in ("collocations_sim.tsv", "experiment_sim.tsv.gz"):
            assert whl.read(f"evalcore_app/sample_data/{sample}") == (REPO / "sample_data" / sample).read_bytes()
        for frontend in ("components/keyqueue/frontend/index.html", "components/plot/plot.js",
                         "components/plot/plot.css"):
            assert f"evalcore_app/{frontend}" in names
        assert not any("secrets" in n or n.endswith((".nbi", ".nbc", ".pyc")) for n in names)
        entry = whl.read("evalcore-0.1.0.dist-info/entry_points.txt").decode()
        assert "evalcore = evalcore.cli:run" in entry


def test_the_sdist_builds_the_same_wheel(package_wheel, tmp_path):
    """The links are followed when the sdist is made: a wheel built from the sdist holds the same files."""
    code = "import sys; from setuptools import build_meta; print(build_meta.build_sdist(sys.argv[1]))"
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=REPO, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    sdist = tmp_path / done.stdout.split()[-1]
    subprocess.run(["tar", "xzf", str(sdist), "-C", str(tmp_path)], check=True)
    source = tmp_path / sdist.name.removesuffix(".tar.gz")
    assert not any(p.is_symlink() for p in source.rglob("*"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w",
                           str(tmp_path / "wheel"), str(source)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    (rebuilt,) = (tmp_path / "wheel").glob("*.whl")
    with zipfile.ZipFile(package_wheel) as a, zipfile.ZipFile(rebuilt) as b:
        files_a = {n: a.read(n) for n in a.namelist() if ".dist-info/" not in n}
        files_b = {n: b.read(n) for n in b.namelist() if ".dist-info/" not in n}
    assert files_a.keys() == files_b.keys()
    assert all(files_a[n] == files_b[n] for n in files_a)
