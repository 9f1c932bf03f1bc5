"""Figures: plotly figures drawn from the result tables the rest of evalcore computes.

- :mod:`.style`: palette, dashes, the template, downsampling, export (PNG, SVG, PDF, HTML);
- :mod:`.paper`: Evert (2004) Figures 1-3, the p-value curve and the threshold histogram;
- :mod:`.pairwise`: the p-value heatmap of every pair of measures;
- :mod:`.roc`: ROC, DET and precision-recall curves;
- :mod:`.samples`: Figure 4 (validation) and the figures for several samples and the UIR.
"""
