"""The server's memory under hostile uploads (issue 29 §1), today's main against this tree, in the same run.

Two dashboard servers with sign-in on (a local OpenID provider, ``oidc-provider-mock``; an allow-list naming one
member), both started as ``./dev run`` starts them (``python -m evalcore_app.serve``, ``server.maxUploadSize`` 500 MB):

* **main**: the code of a named commit (default ``main``), extracted with ``git archive`` into a temporary folder;
* **now**: this working tree, with the upload guard (evalcore_app/uploads.py).

On each, in the same order, with the server's resident memory (``VmRSS`` of its process) read before and after:

1. **signed out**: a Chromium tab opens the sign-in screen; with that tab's session id, XSRF token and cookies,
   ``--puts`` uploads (default 6) of ``--mb`` MB each (default 16) under new file ids, as the issue's attacker sent;
2. **many ids**: the same tab, ``--ids`` uploads (default 20,000) of 1 kB under new file ids;
3. **member**: a tab signs in as the member, then ``--member-puts`` uploads (default 60) of ``--mb`` MB under new file
   ids (960 MB, past the 500 MB one tab may hold).

Each line gives the statuses the server answered, the memory before and after and the growth, and the growth of
**now** against **main** (a ratio). Results also go to ``bench/results/uploads.json``.

Usage: python bench/bench_uploads.py [--baseline main] [--puts 6] [--mb 16] [--ids 20000] [--member-puts 60]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

import raw_requests as req  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
MEMBER = "alice@lab.example"
STARTUP_S = 600  # the machine may be loaded


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_S
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"{url} exited:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not answer in {STARTUP_S} s:\n{log.read_text()[-3000:]}")
        time.sleep(0.3)


def rss_mb(pid: int) -> float:
    return next(int(line.split()[1]) for line in open(f"/proc/{pid}/status") if line.startswith("VmRSS")) / 1024


def settled_rss_mb(pid: int, still_s: float = 3.0, timeout_s: float = 120.0) -> float:
    """The server's resident memory once it has not changed by more than 1 MB for ``still_s`` seconds."""
    deadline, last, since = time.monotonic() + timeout_s, rss_mb(pid), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = rss_mb(pid)
        if abs(now - last) > 1:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= still_s:
            break
    return rss_mb(pid)


def start_server(folder: Path, secrets_toml: Path, work: Path, name: str) -> tuple[subprocess.Popen, str, Path]:
    port = free_port()
    log = work / f"{name}.log"
    env = {**os.environ, "EVALCORE_STORE": str(work / f"{name}-store"), "PYTHONPATH": str(folder)}
    env.pop("EVALCORE_DEFAULT_DATASET", None)
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "evalcore_app.serve", "--server.headless", "true", "--server.port",
                                 str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
                                 "--secrets.files", str(secrets_toml)], cwd=folder, env=env, stdout=out,
                                stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    wait_for(url + "/_stcore/health", proc, log)
    return proc, url, log


def open_tab(browser, url: str):
    context = browser.new_context()
    page = context.new_page()
    sessions = req.watch_sessions(page)
    page.goto(url + "/")
    page.get_by_role("button", name="Sign in").wait_for(timeout=STARTUP_S * 1000)
    return context, page, sessions


def sign_in(page, provider: str, who: str) -> None:
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{provider}/oauth2/authorize?*", timeout=STARTUP_S * 1000)
    page.locator("input[name=sub]").fill(who)
    page.get_by_role("button", name="Authorize").click()
    page.get_by_role("button", name="Sign out").wait_for(timeout=STARTUP_S * 1000)


def attack(url: str, session: str, cookies: dict, count: int, size: int) -> dict:
    data = os.urandom(size)
    statuses = collections.Counter(str(req.upload(url, session, cookies, data)) for _ in range(count))
    return dict(statuses)


def measure(name: str, folder: Path, secrets_toml: Path, provider: str, browser, work: Path, args) -> dict:
    proc, url, log = start_server(folder, secrets_toml, work, name)
    out = {}
    try:
        context, page, sessions = open_tab(browser, url)
        cookies = req.cookies_of(context)
        steps = [("signed out", args.puts, args.mb * 10**6), ("many ids", args.ids, 1000)]
        for step, count, size in steps:
            before = settled_rss_mb(proc.pid)
            statuses = attack(url, sessions[-1], cookies, count, size)
            after = settled_rss_mb(proc.pid)
            out[step] = {"requests": count, "bytes_each": size, "statuses": statuses, "rss_before_mb": before,
                         "rss_after_mb": after}
        member, page_m, sessions_m = open_tab(browser, url)
        sign_in(page_m, provider, MEMBER)
        before = settled_rss_mb(proc.pid)
        statuses = attack(url, sessions_m[-1], req.cookies_of(member), args.member_puts, args.mb * 10**6)
        after = settled_rss_mb(proc.pid)
        out["member"] = {"requests": args.member_puts, "bytes_each": args.mb * 10**6, "statuses": statuses,
                         "rss_before_mb": before, "rss_after_mb": after}
        context.close()
        member.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default="main", help="the commit to compare with (default main)")
    parser.add_argument("--puts", type=int, default=6)
    parser.add_argument("--mb", type=int, default=16)
    parser.add_argument("--ids", type=int, default=20000)
    parser.add_argument("--member-puts", type=int, default=60)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench_uploads_") as tmp:
        work = Path(tmp)
        baseline = work / "baseline"
        baseline.mkdir()
        archive = subprocess.run(["git", "archive", args.baseline], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(baseline)], input=archive, check=True)
        port = free_port()
        provider = f"http://127.0.0.1:{port}"
        prov = subprocess.Popen([sys.executable, "-m", "oidc_provider_mock", "--host", "127.0.0.1", "--port",
                                 str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for(provider + "/.well-known/openid-configuration", prov, work / "none")
            secrets_toml = work / "secrets.toml"
            secrets_toml.write_text(
                "[auth]\n"
                'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
                f'cookie_secret = "{secrets.token_hex(32)}"\n'
                'client_id = "evalcore-bench"\n'
                f'client_secret = "{secrets.token_hex(16)}"\n'
                f'server_metadata_url = "{provider}/.well-known/openid-configuration"\n\n'
                f'[evalcore]\nallowed_users = ["{MEMBER}"]\n')
            results = {}
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                try:
                    for name, folder in ((args.baseline, baseline), ("now", ROOT)):
                        results[name] = measure(name, folder, secrets_toml, provider, browser, work, args)
                finally:
                    browser.close()
        finally:
            prov.terminate()
            prov.wait(timeout=30)

    base, now = results[args.baseline], results["now"]
    print(f"server memory (VmRSS) before and after each step; {args.baseline} = today's main, now = this tree")
    print(f"{'step':<12} {'server':<6} {'requests':>9} {'statuses':<22} {'before MB':>10} {'after MB':>9} "
          f"{'growth MB':>10}")
    for step in base:
        for name, res in ((args.baseline, base), ("now", now)):
            r = res[step]
            growth = r["rss_after_mb"] - r["rss_before_mb"]
            r["growth_mb"] = growth
            print(f"{step:<12} {name:<6} {r['requests']:>9} {json.dumps(r['statuses']):<22} "
                  f"{r['rss_before_mb']:>10.0f} {r['rss_after_mb']:>9.0f} {growth:>10.1f}")
        b, n = base[step]["growth_mb"], now[step]["growth_mb"]
        print(f"{step:<12} growth now / {args.baseline}: {n / b:.3f}" if b > 1 else f"{step:<12} (no growth)")
    results_dir = ROOT / "bench" / "results"
    results_dir.mkdir(exist_ok=True)
    (results_dir / "uploads.json").write_text(json.dumps({"args": vars(args), "results": results}, indent=1))


if __name__ == "__main__":
    main()
