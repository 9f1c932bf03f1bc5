"""Reports: from an analysis to a paper's figures, tables, methods paragraph and a reproducible signature.

- :mod:`.settings`: :class:`ReportSettings`, the settings that decide the numbers; display names;
- :mod:`.results`: the numbers (precision with intervals, pairwise tests, Figure 3's tests);
- :mod:`.signature`: signature strings (build, parse, compare) and the digest of the numbers;
- :mod:`.tables`, :mod:`.methods`, :mod:`.bib`, :mod:`.figures`, :mod:`.latex`: the parts of a report;
- :mod:`.build`: the whole report as one ZIP; :mod:`.reproduce`: recompute a signature's numbers;
- :mod:`.embed`: a signature inside PNG, SVG, PDF and HTML files.
"""

_EXPORTS = {
    "Report": "build",
    "build_report": "build",
    "report_signature": "build",
    "share_link": "build",
    "ReportResults": "results",
    "report_numbers": "results",
    "report_results": "results",
    "ReportSettings": "settings",
    "default_sizes": "settings",
    "display_names": "settings",
    "parse_names": "settings",
    "Signature": "signature",
    "compare_signatures": "signature",
    "numbers_digest": "signature",
    "parse_signature": "signature",
}

__all__ = ["Report", "ReportResults", "ReportSettings", "Signature", "build_report", "compare_signatures",
           "default_sizes", "display_names", "numbers_digest", "parse_names", "parse_signature",
           "report_numbers", "report_results", "report_signature", "share_link"]


def __getattr__(name: str):
    """Import the part a name lives in only when it is used (the command line's parsers stay light)."""
    if name in _EXPORTS:
        from importlib import import_module

        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
