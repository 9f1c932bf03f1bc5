"""The dashboard servers the browser tests have running, as ``(process, log path)``: one list for the whole test
process (conftest.py is also loaded a second time under another name by modules that start servers of their own)."""

LIVE: list = []
