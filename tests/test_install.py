"""The package as its users install it (issue 32): the wheel in a fresh virtual environment, first with no extra,
then with [text], then with [app] as the Dockerfile installs it, and the dashboard served from there.

No container engine runs here, so the image's file system is built another way: the Dockerfile's final stage is
read and its steps replayed on the host, into a temporary folder standing for the image's root (``/opt/evalcore``,
``/wheels``, ``/data``, ``/home/evalcore`` under it), with the package index replaced by a local wheelhouse of the
pinned runtime (tests/wheels.py) and the machine's pip configuration left out, as in the image:

1. ``RUN python3 -m venv /opt/evalcore`` as written; then, in that environment, the package with no extra (``pip
   install evalcore-*.whl``, the versions of requirements.txt): every module of ``evalcore`` imports without any
   module of an extra (Streamlit, sacrebleu, jiwer, rouge-score, ir-measures, pyspark, ...); ``evalcore curves``
   reads the sample data and the same table in Latin-1 and UTF-16; ``evalcore systems`` on text files and on TREC
   runs, ``evalcore app`` and ``--engine spark`` each say in one line which extra to install (exit code 2); the
   store is the user's data folder.
2. The same with [text]: ``evalcore systems`` on text gives sacrebleu's own BLEU and rouge-score's own ROUGE-1, and
   on TREC runs the clone's nDCG@10 (ir-measures).
3. The Dockerfile's own steps from there: ``pip install ... "evalcore-*.whl[app]"``, the kernels compiled, the user
   and the volume's folder (made here by hand: no user is created on the host; a root test runs the server as
   ``nobody``). Every module of ``evalcore_app`` imports; Streamlit reads the project's settings (the wheel's
   ``dashboard/.streamlit/config.toml``) for the installed app from another folder; the image's command
   (``evalcore app``) with the image's environment serves the dashboard from its working folder; the health check
   passes; Chromium loads the sample's Precision page and the Data page with the upload limit of the settings.

Not run here: ``docker build`` itself (its ``apt-get install`` of python3, python3-venv and chromium: this machine
has the same Debian packages, checked) and ``useradd``. The stages share one environment, built in order (the
tests of a stage assert what it holds). Installs skip byte-compiling (``--no-compile``) except the Dockerfile's own.
"""

from __future__ import annotations

import concurrent.futures
import importlib.util
import io
import json
import os
import pwd
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

import wheels
from evalcore.extras import EXTRAS

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample_data" / "collocations_sim.tsv"
CHROMIUM = Path("/usr/bin/chromium")
DOCKER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"  # a container's PATH before ENV
SERVER_START_S = 600  # a fresh environment: imports from source, kernels loaded, on a loaded machine
FIRST_PAGE_MS = 900_000  # the first run of a page in that server (its imports compiled from source: the stages before
# the Dockerfile's install skip byte-compiling), on a machine whose cores other processes keep busy
EXTRA_MODULES = tuple(m for extra in ("text", "app", "spark") for m in EXTRAS[extra])  # what no core module imports

_spec = importlib.util.spec_from_file_location("browser_helpers", REPO / "tests" / "browser" / "test_browser.py")
browser_helpers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(browser_helpers)
RUN_COUNTER = (REPO / "tests" / "browser" / "run_counter.js").read_text()


# ---------------------------------------------------------------- the Dockerfile, replayed

def final_stage(text: str) -> list[tuple[str, str, bool]]:
    """The final stage's instructions as (instruction, argument, replayed): continued lines joined; ``replayed``
    when the comment line right above says so (``# replayed: ...``)."""
    lines = text.replace("\\\n", " ").splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("FROM "))
    steps, above = [], ""
    for line in lines[start + 1:]:
        if line.startswith("#"):
            above = line
            continue
        if line.strip():
            instruction, _, argument = line.partition(" ")
            steps.append((instruction, argument.strip(), above.startswith("# replayed")))
        above = ""
    return steps


class Image:
    """The image's file system under ``root``: its absolute paths mapped there, its environment, its user."""

    ROOTS = ("/opt/", "/wheels", "/data", "/home/")

    def __init__(self, root: Path, wheelhouse: Path):
        self.root = root
        self.steps = final_stage((REPO / "Dockerfile").read_text())
        self.wheelhouse = wheelhouse
        self.env = {"PATH": DOCKER_PATH}
        self.workdir = root
        self.user = pwd.getpwnam("nobody") if os.geteuid() == 0 else pwd.getpwuid(os.geteuid())

    def path(self, text: str) -> str:
        """``text`` with the image's absolute paths under ``root``."""
        return re.sub(r"(?<![\w./-])(" + "|".join(map(re.escape, self.ROOTS)) + ")",
                      lambda m: str(self.root) + m.group(1), text)

    def step(self, instruction: str, contains: str = "", *, replayed_only: bool = True) -> str:
        """The argument of the first ``instruction`` whose text contains ``contains`` (of a RUN: a replayed one,
        unless ``replayed_only`` is false)."""
        return next(arg for ins, arg, replayed in self.steps if ins == instruction and contains in arg
                    and (replayed or ins != "RUN" or not replayed_only))

    def build_env(self) -> dict[str, str]:
        """What a RUN sees while building: the image's environment so far, pip from the wheelhouse alone and no
        configuration of this machine's pip (the image has none)."""
        return {**self.env, "HOME": "/root" if os.geteuid() == 0 else str(Path.home()), "PIP_NO_INDEX": "1",
                "PIP_FIND_LINKS": str(self.wheelhouse), "PIP_CONFIG_FILE": os.devnull,
                "PIP_DISABLE_PIP_VERSION_CHECK": "1"}

    def run(self, command: str, timeout: float = 1800) -> subprocess.CompletedProcess:
        """A RUN step's shell command, its paths mapped, as the image's build runs it (/bin/sh -c, as root)."""
        done = subprocess.run(["/bin/sh", "-c", self.path(command)], env=self.build_env(), capture_output=True,
                              text=True, timeout=timeout, cwd=self.root)
        assert done.returncode == 0, f"RUN {command}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
        return done

    @property
    def python(self) -> str:
        return self.path("/opt/evalcore/bin/python")

    def pip_install(self, requirement: str) -> None:
        """A stage of this test (not a step of the Dockerfile): ``requirement`` into the image's environment, at the
        versions of requirements.txt, as the Dockerfile's own install does it."""
        self.run(f"{self.python} -m pip install --no-compile -c /wheels/requirements.txt {requirement}")

    def apply(self, instruction: str, argument: str) -> None:
        """ENV, WORKDIR and USER as the image keeps them for what follows."""
        if instruction == "ENV":
            key, _, value = argument.partition("=")
            value = re.sub(r"\$(\w+)|\$\{(\w+)\}", lambda m: self.env.get(m.group(1) or m.group(2), ""), value)
            self.env[key] = self.path(value)
        elif instruction == "WORKDIR":
            self.workdir = Path(self.path(argument))
        elif instruction == "USER":
            self.env["HOME"] = self.path(f"/home/{argument}")

    def as_user(self) -> dict:
        """Popen's arguments that run a process as the image's user (here: ``nobody`` when the test runs as root)."""
        if os.geteuid() != 0:
            return {}
        return {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}

    def evalcore(self, *args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
        """The installed ``evalcore`` command (the environment's script), from a folder of its own."""
        return subprocess.run([self.path("/opt/evalcore/bin/evalcore"), *args], capture_output=True, text=True,
                              timeout=900, cwd=cwd or self.root, env={**self.build_env(), **(env or {})})

    def python_code(self, code: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([self.python, "-c", code, *args], capture_output=True, text=True, timeout=900,
                              cwd=self.root, env={**self.build_env(), **(env or {})})


@pytest.fixture(scope="module")
def image(request, tmp_path_factory):
    """The image's file system up to its virtual environment (``RUN python3 -m venv /opt/evalcore``), with the
    COPY steps done: the wheel (the Dockerfile's first stage) and requirements.txt in /wheels."""
    cache = request.config.cache.mkdir("evalcore-wheelhouse")
    house = wheels.wheelhouse(cache)
    # A folder of its own under the system's temporary folder (pytest's are private to root): the server runs as
    # another user, who must reach the environment.
    root = Path(tempfile.mkdtemp(prefix="evalcore-image-"))
    root.chmod(0o755)
    try:
        built = Image(root, house)
        for instruction, argument, _ in built.steps:
            if instruction == "COPY" and argument.startswith("--from="):
                wheels.build_wheel(Path(built.path(argument.split()[-1])))
            elif instruction == "COPY":
                source, target = argument.split()
                Path(built.path(target)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(REPO / source, built.path(target))
        built.run(built.step("RUN", "-m venv"))
        yield built
    finally:
        if root.parent == Path(tempfile.gettempdir()) and root.name.startswith("evalcore-image-"):
            shutil.rmtree(root)


def test_the_image_needs_no_more_than_this_machines_debian_packages(image):
    apt = image.step("RUN", "apt-get install", replayed_only=False)
    packages = apt.split("--no-install-recommends", 1)[1].split("&&", 1)[0].split()
    assert {"python3", "python3-venv", "chromium"} <= set(packages)
    not_replayed = [arg for ins, arg, replayed in image.steps if ins == "RUN" and not replayed]
    assert not_replayed == [apt], f"a RUN step of the image that the replay leaves out: {not_replayed}"
    done = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Status}\n", *packages], capture_output=True,
                          text=True)
    assert done.returncode == 0 and done.stdout.count("install ok installed") == len(packages), done.stdout


# ---------------------------------------------------------------- 1. no extra

LATIN_NAMES = {"log_like": "G²", "t_score": "t-Wert", "w1": "Wort_1"}  # column names in Latin-1's range
ONE_LINE = re.compile(r'evalcore: error: [^\n]* needs the \[(\w+)\] extra \([^\n]*\): pip install "evalcore\[\1\]"\n')


def encoded_tables(folder: Path) -> dict[str, Path]:
    """The sample's table (a few words and the column names in German) in UTF-8, Latin-1 and UTF-16 (little-endian,
    no byte-order mark: found by charset-normalizer)."""
    table = pd.read_csv(SAMPLE, sep="\t", dtype=str, keep_default_na=False).rename(columns=LATIN_NAMES)
    table.loc[::7, "Wort_1"] = "Größe"
    text = table.to_csv(sep="\t", index=False, lineterminator="\n")
    files = {"utf-8": "utf-8", "latin-1": "latin-1", "utf-16": "utf-16-le"}
    for name, codec in files.items():
        (folder / f"{name}.tsv").write_bytes(text.encode(codec))
    return {name: folder / f"{name}.tsv" for name in files}


def test_with_no_extra_the_core_installs_and_imports_without_the_extras(image):
    image.pip_install(image.path("$(ls /wheels/evalcore-*.whl)"))
    code = ("import importlib, json, pkgutil, sys, evalcore\n"
            "names = [m.name for m in pkgutil.walk_packages(evalcore.__path__, 'evalcore.') "
            "if not m.name.endswith('__main__')]\n"
            "for name in names: importlib.import_module(name)\n"
            "print(json.dumps({'modules': names, 'extras': sorted(m for m in sys.argv[1:] if m in sys.modules),"
            " 'where': evalcore.__file__}))")
    done = image.python_code(code, *EXTRA_MODULES)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout)
    assert found["where"].startswith(image.path("/opt/evalcore/lib/")), found["where"]  # the installed package
    assert len(found["modules"]) > 100 and "evalcore.systems.metrics" in found["modules"]
    assert found["extras"] == []  # no module of the core imports an extra's package
    absent = image.python_code("import importlib.util, sys; print([m for m in sys.argv[1:] if "
                               "importlib.util.find_spec(m)])", *EXTRA_MODULES)
    assert absent.stdout.strip() == "[]"  # the environment holds no extra
    app = image.python_code("import evalcore_app.cached")  # the app's modules need [app]
    assert app.returncode == 1 and "No module named 'streamlit'" in app.stderr


def test_with_no_extra_curves_reads_the_sample_and_latin1_and_utf16(image, tmp_path):
    installed = Path(image.path("/opt/evalcore/lib/python3.11/site-packages/evalcore_app/sample_data"))
    sample = installed / SAMPLE.name
    assert sample.read_bytes() == SAMPLE.read_bytes()  # the sample data ships in the wheel
    args = ["--label", "is_tp", "--ties", "stable", "--n", "100:6000:100"]
    done = image.evalcore("curves", str(sample), *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    clone = subprocess.run([sys.executable, "-m", "evalcore", "curves", str(SAMPLE), *args], capture_output=True,
                           text=True, cwd=REPO, timeout=900)
    assert done.stdout == clone.stdout  # the installed command, the clone's numbers
    curves = pd.read_csv(io.StringIO(done.stdout))
    data = pd.read_csv(SAMPLE, sep="\t")
    assert set(curves["measure"]) == {"freq", "log_like", "t_score", "chisq", "MI"}
    at_100 = curves[(curves["measure"] == "log_like") & (curves["n"] == 100)].iloc[0]
    top = data.sort_values("log_like", ascending=False, kind="stable").head(100)
    assert at_100["tp"] == top["is_tp"].sum() and at_100["precision"] == top["is_tp"].mean()

    outputs = {}
    for name, path in encoded_tables(tmp_path).items():
        done = image.evalcore("curves", str(path), *args, cwd=tmp_path)
        assert done.returncode == 0, f"{name}: {done.stderr[-3000:]}"
        outputs[name] = done.stdout
    assert outputs["latin-1"] == outputs["utf-8"] and outputs["utf-16"] == outputs["utf-8"]
    named = pd.read_csv(io.StringIO(outputs["utf-16"]))
    assert {"G²", "t-Wert"} <= set(named["measure"])  # the names decoded, not mangled
    renamed = curves.replace({"measure": LATIN_NAMES})
    pd.testing.assert_frame_equal(named.reset_index(drop=True), renamed.reset_index(drop=True))


def test_with_no_extra_a_command_that_needs_one_says_which(image, tmp_path):
    (tmp_path / "refs.txt").write_text("the cat sat on the mat\n")
    (tmp_path / "a.txt").write_text("the cat sat on a mat\n")
    (tmp_path / "b.txt").write_text("a cat is on the mat\n")
    (tmp_path / "qrels.txt").write_text("1 0 d1 1\n1 0 d2 0\n")
    (tmp_path / "a.run").write_text("1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n")
    (tmp_path / "b.run").write_text("1 Q0 d2 1 2.0 b\n1 Q0 d1 2 1.0 b\n")
    for args, extra in [(["systems", "--refs", "refs.txt", "--hyps", "a.txt", "b.txt"], "text"),
                        (["systems", "--qrels", "qrels.txt", "--runs", "a.run", "b.run"], "text"),
                        (["app", "--server.port", "1"], "app"),
                        (["curves", str(SAMPLE), "--engine", "spark", "--ties", "hash"], "spark")]:
        done = image.evalcore(*args, cwd=tmp_path)
        assert done.returncode == 2 and done.stdout == "", (args, done.stderr[-2000:])
        assert ONE_LINE.fullmatch(done.stderr) and f"[{extra}]" in done.stderr, done.stderr  # one line, nothing else
    table = tmp_path / "items.csv"  # a per-item table needs no extra
    table.write_text("item,A.correct,A.total,B.correct,B.total\n"
                     + "".join(f"{i},{i % 2},1,{(i % 3) > 0:d},1\n" for i in range(60)))
    done = image.evalcore("systems", str(table), "--resamples", "200", "--json", "-", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["metric"] == "accuracy" and [s["score"] for s in result["systems"]] == [0.5, 40 / 60]


def test_with_no_extra_the_store_is_the_users_data_folder(image, tmp_path):
    code = ("from evalcore.io.store import DatasetStore; s = DatasetStore(); s.put(b'a,b\\n1,2\\n', 'x.csv'); "
            "print(s.root)")
    env = {"HOME": str(tmp_path / "home")}
    done = image.python_code(code, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    expected = tmp_path / "home" / ".local" / "share" / "evalcore" / "store"
    assert done.stdout.strip() == str(expected) and any(expected.glob("*/*/data.bin"))
    done = image.python_code(code, env={**env, "EVALCORE_STORE": str(tmp_path / "chosen")})
    assert done.stdout.strip() == str(tmp_path / "chosen")


# ---------------------------------------------------------------- 2. [text]

def test_with_text_systems_compares_texts_with_sacrebleus_bleu(image, tmp_path):
    image.pip_install(image.path('"$(ls /wheels/evalcore-*.whl)[text]"'))
    absent = image.python_code("import importlib.util, sys; print([m for m in sys.argv[1:] if "
                               "importlib.util.find_spec(m)])", *EXTRA_MODULES)
    assert absent.stdout.strip() == str(list(EXTRAS["text"]))  # [text], and no other extra
    refs = [f"the {w} sat on the mat number {i}" for i, w in enumerate(["cat", "dog", "bird", "cow"] * 10)]
    hyps = {"base": [r.replace("sat", "is") for r in refs], "new": [r.replace("mat", "rug", 1) for r in refs]}
    (tmp_path / "refs.txt").write_text("\n".join(refs) + "\n")
    for name, lines in hyps.items():
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n")
    done = image.evalcore("systems", "--refs", "refs.txt", "--hyps", "base.txt", "new.txt", "--metric", "bleu",
                          "--resamples", "200", "--json", "-", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    reference = subprocess.run([image.python, "-c", "import json, sys, sacrebleu; refs = open(sys.argv[1]).read()"
                                ".splitlines(); print(json.dumps([sacrebleu.corpus_bleu(open(f).read().splitlines(), "
                                "[refs]).score for f in sys.argv[2:]]))", "refs.txt", "base.txt", "new.txt"],
                               capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert reference.returncode == 0, reference.stderr
    assert [s["name"] for s in result["systems"]] == ["base", "new"]
    assert [s["score"] for s in result["systems"]] == pytest.approx(json.loads(reference.stdout), abs=1e-9)


def test_with_text_systems_scores_rouge_with_rouge_score_and_trec_runs_as_the_clone(image, tmp_path):
    """ROUGE-1 (rouge-score's tokenizer and nltk's Porter stemmer, evalcore's default) and nDCG@10 (ir-measures)
    from the installed [text]: rouge-score's own mean F-measure, and the clone's numbers for the TREC runs."""
    refs = [f"the {w} were sitting on the mats in room {i}" for i, w in enumerate(["cats", "dogs", "birds"] * 8)]
    hyps = {"base": [r.replace("sitting", "sat") for r in refs],
            "new": [r.replace("mats", "mat") for r in refs]}
    (tmp_path / "refs.txt").write_text("\n".join(refs) + "\n")
    for name, lines in hyps.items():
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n")
    done = image.evalcore("systems", "--refs", "refs.txt", "--hyps", "base.txt", "new.txt", "--metric", "rouge1",
                          "--resamples", "200", "--json", "-", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    scores = [s["score"] for s in json.loads(done.stdout)["systems"]]
    reference = subprocess.run([image.python, "-c", "import json, sys; from rouge_score import rouge_scorer; "
                                "s = rouge_scorer.RougeScorer(['rouge1'], use_stemmer=True); "
                                "refs = open(sys.argv[1]).read().splitlines(); "
                                "print(json.dumps([sum(s.score(r, h)['rouge1'].fmeasure for r, h in "
                                "zip(refs, open(f).read().splitlines())) / len(refs) for f in sys.argv[2:]]))",
                                "refs.txt", "base.txt", "new.txt"], capture_output=True, text=True, cwd=tmp_path,
                               timeout=300)
    assert reference.returncode == 0, reference.stderr
    expected = json.loads(reference.stdout)
    assert expected[0] != expected[1]  # the stemmer counts sitting/sat apart, mats/mat together
    assert scores == pytest.approx(expected, abs=1e-12)

    with open(tmp_path / "qrels.txt", "w") as qrels:  # 12 topics, 20 documents each, a third of them relevant
        for t in range(1, 13):
            qrels.writelines(f"{t} 0 d{d} {int((d * 7 + t) % 3 == 0)}\n" for d in range(20))
    for name, step in (("bm25", 3), ("dense", 7)):
        with open(tmp_path / f"{name}.run", "w") as run:
            for t in range(1, 13):
                docs = [(d * step + t) % 20 for d in range(15)]
                run.writelines(f"{t} Q0 d{d} {k + 1} {100 - k}.0 {name}\n" for k, d in enumerate(docs))
    args = ["systems", "--qrels", "qrels.txt", "--runs", "bm25.run", "dense.run", "--metric", "nDCG@10",
            "--resamples", "200", "--json", "-"]
    done = image.evalcore(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    clone = subprocess.run([sys.executable, "-m", "evalcore", *args], capture_output=True, text=True, cwd=tmp_path,
                           timeout=900)
    assert clone.returncode == 0, clone.stderr[-3000:]
    installed = json.loads(done.stdout)
    assert installed["metric"] == "nDCG@10" and installed["n_items"] == 12
    assert installed == json.loads(clone.stdout)  # the scores, the intervals and the p-values: the clone's


# ---------------------------------------------------------------- 3. [app], as the Dockerfile installs it

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def app_image(image):
    """The Dockerfile's steps from its install on: [app], the kernels, the user's folders; then its ENV, WORKDIR,
    USER, as its command will see them."""
    for instruction, argument, replayed in image.steps:
        if instruction == "RUN" and replayed and "useradd" in argument:
            for part in argument.split("&&"):  # the user and the volume's folder, made here by hand
                words = part.split()
                if words[0] == "useradd":
                    home = Path(image.path(f"/home/{words[-1]}"))
                    home.mkdir(parents=True)
                    os.chown(home, image.user.pw_uid, image.user.pw_gid)
                elif words[:2] == ["mkdir", "-p"]:
                    Path(image.path(words[2])).mkdir(parents=True, exist_ok=True)
                elif words[0] == "chown":
                    os.chown(image.path(words[2]), image.user.pw_uid, image.user.pw_gid)
                else:
                    raise AssertionError(f"a part of the user's step the replay does not know: {part}")
        elif instruction == "RUN" and replayed and "-m venv" not in argument:
            image.run(argument)
        elif instruction in ("ENV", "WORKDIR", "USER"):
            image.apply(instruction, argument)
    return image


def test_with_app_every_module_of_the_app_imports(app_image):
    code = ("import importlib, json, pkgutil, sys, evalcore_app\n"
            "names = [m.name for m in pkgutil.walk_packages(evalcore_app.__path__, 'evalcore_app.')]\n"
            "for name in names: importlib.import_module(name)\n"
            "print(json.dumps({'modules': names, 'pyspark': 'pyspark' in sys.modules}))")
    done = app_image.python_code(code)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout)
    assert {"evalcore_app.serve", "evalcore_app.uploads", "evalcore_app.components.plot"} <= set(found["modules"])
    assert found["pyspark"] is False and app_image.python_code("import pyspark").returncode == 1  # [app] holds no Spark


def test_with_app_streamlit_reads_the_projects_settings_from_any_folder(app_image):
    """The settings the clone keeps in .streamlit/config.toml apply to the installed app started elsewhere: Streamlit
    reads the config.toml beside the main script (the wheel's evalcore_app/dashboard/), over the working folder's."""
    settings = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())
    expected = {f"{section}.{key}": value for section, values in settings.items() for key, value in values.items()}
    assert {"server.maxUploadSize", "server.maxMessageSize", "server.fileWatcherType", "client.toolbarMode",
            "client.disableDataExport", "runner.postScriptGC"} <= set(expected)
    code = ("import json, sys; from streamlit import config; from evalcore_app.serve import APP; "
            "config._main_script_path = str(APP); config.get_config_options(force_reparse=True); "
            "keys = json.loads(sys.argv[1]); "
            "print(json.dumps({'app': str(APP), 'values': {k: config.get_option(k) for k in keys}, "
            "'where': {k: config.get_where_defined(k) for k in keys}}))")
    done = subprocess.run([app_image.python, "-c", code, json.dumps(list(expected))], capture_output=True, text=True,
                          timeout=300, cwd=app_image.workdir, env={**app_image.env})
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout)
    app = Path(found["app"])
    assert app == Path(app_image.path("/opt/evalcore/lib/python3.11/site-packages/evalcore_app/dashboard/app.py"))
    assert found["values"] == expected
    assert set(found["where"].values()) == {str(app.parent / ".streamlit" / "config.toml")}


def _health(image: Image, port: int) -> int:
    check = image.step("HEALTHCHECK").split(" CMD ", 1)[1]
    return subprocess.run(["/bin/sh", "-c", check], env={**image.env, "STREAMLIT_SERVER_PORT": str(port)},
                          capture_output=True, timeout=60, **image.as_user()).returncode


@pytest.fixture(scope="module")
def served(app_image, tmp_path_factory):
    """The image's command with the image's environment, from its working folder, as its user: the URL."""
    port = _free_port()
    assert _health(app_image, port) != 0  # nothing answers yet: the check fails
    command = json.loads(app_image.step("CMD"))
    env = {**app_image.env, "STREAMLIT_SERVER_PORT": str(port), "STREAMLIT_SERVER_ADDRESS": "127.0.0.1"}  # -p, -e
    log_path = tmp_path_factory.mktemp("image_log") / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([shutil.which(command[0], path=env["PATH"]), *command[1:]], env=env,
                                cwd=app_image.workdir, stdout=log, stderr=subprocess.STDOUT, **app_image.as_user())
    try:
        deadline = time.monotonic() + SERVER_START_S
        while _health(app_image, port) != 0:
            assert proc.poll() is None, f"the server ended:\n{log_path.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"no health in {SERVER_START_S} s:\n{log_path.read_text()[-3000:]}"
            time.sleep(1)
        yield f"http://127.0.0.1:{port}", log_path
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


def test_with_app_the_image_serves_the_samples_precision_page_in_chromium(app_image, served, tmp_path):
    url, log_path = served
    assert urllib.request.urlopen(f"{url}/_stcore/health", timeout=30).read() == b"ok"
    log = log_path.read_text()
    assert f"the store is {app_image.path('/data/store')}" in log, log[-2000:]  # EVALCORE_STORE, on the volume
    assert CHROMIUM.exists(), "the test opens the dashboard in Debian's Chromium (apt-get install chromium)"
    from playwright.sync_api import expect, sync_playwright

    def in_chromium() -> Path:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox",
                                                                             "--disable-gpu", "--no-first-run"])
            try:
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                context.add_init_script(RUN_COUNTER)
                page = context.new_page()
                page.goto(f"{url}/precision")  # no data set in the link: the image's app opens the shipped sample
                browser_helpers.wait_for_figures(page, timeout=FIRST_PAGE_MS)
                expect(page.get_by_role("heading", name="Precision of n-best lists (Evert 2004, Figure 1)")).to_be_visible()
                expect(page.get_by_test_id("stSidebar")).to_contain_text("Data: sample collocations_sim")
                names = {name for name, _, _ in browser_helpers.figure(page)["traces"]}
                assert {"log_like", "t_score"} <= names, names
                # the project's settings in force: the viewer's toolbar (no Deploy), the upload limit of 500 MB
                expect(page.get_by_test_id("stToolbar")).to_have_count(1)
                expect(page.get_by_test_id("stAppDeployButton")).to_have_count(0)
                page.goto(url + "/")
                browser_helpers.wait_for_app(page, timeout=FIRST_PAGE_MS)
                expect(page.get_by_test_id("stMain")).to_contain_text("up to 500 MB")
                expect(page.get_by_test_id("stFileUploaderDropzoneInstructions").first).to_contain_text("500MB")
                upload = tmp_path / "upload.csv"  # an upload is kept in the store, on the volume, by the image's user
                pd.read_csv(SAMPLE, sep="\t").head(300).to_csv(upload, index=False)
                browser_helpers.upload(page, upload)
                browser_helpers.assert_no_traceback(page)
            finally:
                browser.close()
        return upload

    # in a thread of its own: a browser test run before in this worker may leave Playwright's loop running here
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        upload = pool.submit(in_chromium).result()
    (stored,) = Path(app_image.path("/data/store")).glob("*/*/data.bin")
    assert stored.read_bytes() == upload.read_bytes() and stored.stat().st_uid == app_image.user.pw_uid
