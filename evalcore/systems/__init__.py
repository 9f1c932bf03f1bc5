"""Comparing whole systems on a test set with a corpus metric (Berg-Kirkpatrick et al. 2012).

references + hypotheses (sacrebleu, jiwer) or a per-item table of counts
  -> per-item sufficient statistics, items x statistics x systems (:mod:`.statistics`)
  -> resampling as weights: a bootstrap resample or a randomization is one matrix product (:mod:`.resample`)
  -> corpus scores with intervals, paired bootstrap and approximate randomization for every pair, Holm
     (:mod:`.compare`); test-set-size curves (:mod:`.sizes`); similarity of two systems (:mod:`.similarity`)
  -> figures (:mod:`.figures`), report, methods text and signature (:mod:`.report`), the command line
     (:mod:`.cli`).

The names of the choices are in :mod:`.names` (light, for the command line's ``--help``); :mod:`.metrics` has the
table of metrics; :mod:`.inputs` reads text files and per-item tables; :mod:`.synthetic` makes a test set of
translations to try it on.
"""

_EXPORTS = {
    "TextOptions": "metrics", "get_metric": "metrics", "METRIC_TABLE": "metrics",
    "read_segments": "inputs", "check_text_input": "inputs", "read_item_table": "inputs",
    "ItemStatistics": "statistics", "text_statistics": "statistics", "table_statistics": "statistics",
    "ResamplingSettings": "compare", "SystemsComparison": "compare", "compare_systems": "compare",
    "size_curves": "sizes",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    """Import the part a name lives in only when it is used (the command line's parser stays light)."""
    if name in _EXPORTS:
        from importlib import import_module

        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
