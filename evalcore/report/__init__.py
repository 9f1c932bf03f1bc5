"""Reports: from an analysis to a paper's figures, tables, methods paragraph and a reproducible signature.

- :mod:`.settings`: :class:`ReportSettings`, the settings that decide the numbers; display names;
- :mod:`.results`: the numbers (precision with intervals, pairwise tests, Figure 3's tests);
- :mod:`.signature`: signature strings (build, parse, compare) and the digest of the numbers;
- :mod:`.tables`, :mod:`.methods`, :mod:`.bib`, :mod:`.figures`, :mod:`.latex`: the parts of a report;
- :mod:`.build`: the whole report as one ZIP; :mod:`.reproduce`: recompute a signature's numbers;
- :mod:`.embed`: a signature inside PNG, SVG, PDF and HTML files.
"""

from .build import Report, build_report, report_signature, share_link
from .results import ReportResults, report_numbers, report_results
from .settings import ReportSettings, default_sizes, display_names, parse_names
from .signature import Signature, compare_signatures, numbers_digest, parse_signature

__all__ = ["Report", "ReportResults", "ReportSettings", "Signature", "build_report", "compare_signatures",
           "default_sizes", "display_names", "numbers_digest", "parse_names", "parse_signature",
           "report_numbers", "report_results", "report_signature", "share_link"]
