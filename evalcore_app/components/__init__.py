"""Streamlit components of the dashboard, each a folder with a Python wrapper and a local frontend (plain HTML and
JavaScript served by the dashboard itself: no CDN, no network)."""
