"""Start-up (issue 10): the kernels are loaded before the first visitor, not by them."""

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_warm_loads_every_kernel_build():
    code = ("from evalcore.warm import warm; warm(); from evalcore.stats import kernels as k; "
            "print([len(f.signatures) for f in (k._fisher_serial, k._fisher_parallel, k._march_serial, "
            "k._march_parallel)])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert all(count >= 1 for count in eval(done.stdout)), done.stdout  # every build has a compiled signature


def test_the_launcher_warms_then_serves_the_app(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "EVALCORE_STORE": str(tmp_path / "store")}
    proc = subprocess.Popen([sys.executable, "-m", "evalcore_app.serve", "--server.headless", "true", "--server.port",
                             str(port), "--browser.gatherUsageStats", "false"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 600  # (warmed first: under a full machine's load, minutes)
        while True:
            try:
                assert urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read() == b"ok"
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read()
                assert time.time() < deadline, "the server did not answer within 600 s"
                time.sleep(0.2)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "imports and compiled kernels loaded in" in err
    assert "the app's modules imported in" in err and "missing ScriptRunContext" not in err


def test_the_app_modules_are_imported_before_the_first_visitor():
    """evalcore_app/serve.py imports evalcore_app/ and what app.py and the pages import (issue 34: evalcore_app.cached, evalcore_app.present, evalcore_app.systems
    and evalcore_app.annotate took the first visitor's run seconds), and runs no page."""
    code = ("import sys; from evalcore_app import serve; serve.import_app(); "
            "print(sorted(m for m in sys.modules if m.startswith(('evalcore_app.', 'pages', 'evalcore.figures.paper', "
            "'evalcore.stats.intervals', 'plotly.graph_objects'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert done.returncode == 0, done.stderr
    loaded = set(eval(done.stdout))
    assert {"evalcore_app.cached", "evalcore_app.present", "evalcore_app.systems", "evalcore_app.annotate", "evalcore_app.tables", "evalcore_app.report", "evalcore_app.components.plot",
            "evalcore.figures.paper", "evalcore.stats.intervals", "plotly.graph_objects"} <= loaded, loaded
    assert not any(m == "pages" or m.startswith("pages.") for m in loaded)  # (a page is run, never imported)
