"""From a fresh clone to the first page (issue 32): the size of the environment ``./dev run`` installs and the time
until the dashboard's first page answers, for today's requirements and the package's runtime, in one run.

For each commit (``--before``: the last one where requirements.txt held everything, test tools and pyspark
included; ``--after``: the runtime alone, the test tools in requirements-test.txt): ``git clone`` of this repository
into a temporary folder and ``git checkout`` of the commit; then ``./dev run`` on a free port, as on a fresh machine
(an empty pip cache, ``PIP_CACHE_DIR``; the packages come from the machine's package indexes, the same for both),
with the clock running from its start until Chromium has opened ``/`` and the app's first run there has finished and
is drawn (tests/browser/test_browser.py's wait_for_app). Then the size of the clone's ``.venv`` (``du``: blocks on
disk, as `du -sh` says it). Chromium is a system package in both and not counted; neither is the pip cache.

    .venv/bin/python bench/bench_install.py [--before 37b7dc0] [--after HEAD] [--keep]

Writes bench/results/install.json and prints a table. Takes minutes per commit (the downloads and pip's work).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
CHROMIUM = "/usr/bin/chromium"
START_TIMEOUT_S = 3600

_spec = importlib.util.spec_from_file_location("browser_helpers", ROOT / "tests" / "browser" / "test_browser.py")
browser_helpers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(browser_helpers)
RUN_COUNTER = (ROOT / "tests" / "browser" / "run_counter.js").read_text()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def disk_mb(path: Path) -> float:
    """Blocks on disk under ``path`` in MB (10^6 bytes), as ``du`` counts them."""
    done = subprocess.run(["du", "-s", "--block-size=1", str(path)], capture_output=True, text=True, check=True)
    return int(done.stdout.split()[0]) / 1e6


def first_page(commit: str, folder: Path, browser) -> dict:
    """Clone at ``commit`` into ``folder``; ``./dev run``; the seconds to the first page, the environment's size."""
    clone = folder / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", commit], check=True)
    sha = subprocess.run(["git", "-C", str(clone), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                         check=True).stdout.strip()
    (folder / "pip-cache").mkdir()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EVALCORE_", "VIRTUAL_ENV", "PYTHONPATH"))}
    env.update(PIP_CACHE_DIR=str(folder / "pip-cache"), EVALCORE_STORE=str(folder / "store"))
    log_path = folder / "dev-run.log"
    load_before = os.getloadavg()
    started = time.monotonic()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(["./dev", "run", "--server.port", str(port), "--server.address", "127.0.0.1"],
                                cwd=clone, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"./dev run ended ({proc.returncode}):\n{log_path.read_text()[-3000:]}")
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=5).read() == b"ok":
                    break
            except OSError:
                pass
            if time.monotonic() - started > START_TIMEOUT_S:
                raise RuntimeError(f"no answer in {START_TIMEOUT_S} s:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.5)
        health_s = time.monotonic() - started
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.add_init_script(RUN_COUNTER)
        page = context.new_page()
        page.goto(url + "/")
        browser_helpers.wait_for_app(page, timeout=1_800_000)
        page_s = time.monotonic() - started
        context.close()
    finally:
        try:
            os.killpg(proc.pid, 15)
            proc.wait(timeout=60)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, 9)
    log = log_path.read_text(errors="replace")
    warm = re.search(r"compiled kernels loaded in ([0-9.]+) s", log)
    packages = subprocess.run([str(clone / ".venv" / "bin" / "python"), "-m", "pip", "list", "--format=json"],
                              capture_output=True, text=True, check=True).stdout
    return {"commit": sha, "venv_mb": round(disk_mb(clone / ".venv"), 1),
            "site_packages_mb": round(disk_mb(next((clone / ".venv" / "lib").glob("python3*/site-packages"))), 1),
            "packages": len(json.loads(packages)), "health_s": round(health_s, 1), "first_page_s": round(page_s, 1),
            "warm_s": float(warm.group(1)) if warm else None, "load_before": [round(x, 1) for x in load_before],
            "load_after": [round(x, 1) for x in os.getloadavg()]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="37b7dc0", help="today's requirements (default 37b7dc0, main before "
                                                            "issue 32)")
    parser.add_argument("--after", default="HEAD", help="the package's runtime (default HEAD)")
    parser.add_argument("--keep", action="store_true", help="keep the clones (printed)")
    args = parser.parse_args()
    after = subprocess.run(["git", "-C", str(ROOT), "rev-parse", args.after], capture_output=True, text=True,
                           check=True).stdout.strip()
    from playwright.sync_api import sync_playwright

    rows = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            for name, commit in (("before", args.before), ("after", after)):
                folder = Path(tempfile.mkdtemp(prefix=f"evalcore-bench-install-{name}-"))
                try:
                    rows[name] = first_page(commit, folder, browser)
                    print(name, rows[name], flush=True)
                finally:
                    if args.keep:
                        print("kept", folder)
                    elif folder.name.startswith("evalcore-bench-install-"):
                        shutil.rmtree(folder)
        finally:
            browser.close()
    ratio = {k: round(rows["after"][k] / rows["before"][k], 3) for k in ("venv_mb", "first_page_s")}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "install.json").write_text(json.dumps({"rows": rows, "after/before": ratio}, indent=1) + "\n")
    print(f"{'':8} {'commit':>9} {'.venv MB':>9} {'packages':>8} {'health s':>9} {'first page s':>12} {'warm s':>7}")
    for name, r in rows.items():
        print(f"{name:8} {r['commit']:>9} {r['venv_mb']:>9.0f} {r['packages']:>8} {r['health_s']:>9.1f} "
              f"{r['first_page_s']:>12.1f} {r['warm_s'] or float('nan'):>7.1f}")
    print(f"after/before: environment {ratio['venv_mb']:.2f}, first page {ratio['first_page_s']:.2f} (goal: at most "
          "0.5 on both)")


if __name__ == "__main__":
    main()
