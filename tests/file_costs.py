"""The order in which ``--dist loadfile`` hands out the test files: the slowest first.

pytest-xdist's loadfile scheduler hands out whole files, by default the files with the most tests first. The
browser files have few tests that take a minute each, so they came last, and one worker ran the last of them
while the other sat idle. Handing out the longest files first (the longest-processing-time rule) lets the many
short files fill the gaps at the end. The cost of a file is its seconds in ``file_seconds.json`` (measured: the
sum of its tests' times in a whole run, setup and teardown included); a file not listed there is estimated from
its number of tests. Refresh the table after a whole run with
``python tests/file_costs.py report.xml`` (from ``pytest ... --junitxml=report.xml``).
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

TABLE = Path(__file__).with_name("file_seconds.json")
GUESS_S = {"tests/browser/": 30.0, "tests/app/": 2.0}  # per test, for a file not in the table
GUESS_OTHER_S = 0.5


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def load() -> dict[str, float]:
    try:
        return {str(k): float(v) for k, v in json.loads(TABLE.read_text()).items()}
    except (OSError, ValueError, AttributeError):
        return {}


def slowest_files_first(nodeids: list[str], seconds: dict[str, float]) -> list[int]:
    """The order of ``nodeids`` (as indices) with each file's tests together, in their own order, the files by
    cost, the most first (ties: as collected)."""
    files: dict[str, list[int]] = {}
    for i, nodeid in enumerate(nodeids):
        files.setdefault(file_of(nodeid), []).append(i)

    def cost(name: str) -> float:
        if name in seconds:
            return seconds[name]
        per_test = next((s for prefix, s in GUESS_S.items() if name.startswith(prefix)), GUESS_OTHER_S)
        return per_test * len(files[name])

    order = sorted(files, key=lambda name: -cost(name))  # (sorted is stable)
    return [i for name in order for i in files[name]]


def measured(junit_xml: str) -> dict[str, float]:
    """Seconds per test file from a pytest JUnit XML report (each test's time includes its setup and teardown)."""
    import xml.etree.ElementTree as ET

    seconds: dict[str, float] = defaultdict(float)
    for case in ET.parse(junit_xml).getroot().iter("testcase"):
        parts = case.get("classname", "").split(".")
        while parts and not parts[-1].startswith("test_"):  # (a class's name follows the module's)
            parts.pop()
        if parts:
            seconds["/".join(parts) + ".py"] += float(case.get("time") or 0)
    return {name: round(s, 1) for name, s in sorted(seconds.items())}


if __name__ == "__main__":
    TABLE.write_text(json.dumps(measured(sys.argv[1]), indent=0) + "\n")
