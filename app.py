"""evalcore dashboard: a router (st.navigation) and the sidebar shared by every page."""

import streamlit as st

from evalcore.engines import TooLargeError
from evalcore.text import markdown_text as esc
from evalcore.work import WorkTooLargeError
from evalcore_app import auth, cached, common, downloads, jobs, preload, present, report, systems
from evalcore_app import serverdata
from evalcore_app.serverdata import ServerDataError

st.set_page_config(page_title="evalcore", page_icon="📈", layout="wide")  # an emoji: drawn locally (a Material
# page icon is fetched from fonts.gstatic.com)
downloads.keep_downloads()  # a download made on a click stays served while the browser fetches it
auth.gate()  # with sign-in configured, nothing below runs before it (evalcore_app/auth.py)

common.PAGES.update({
    "data": st.Page("pages/data.py", title="Data", icon=":material/upload_file:", url_path="data", default=True),
    "precision": st.Page("pages/precision.py", title="Precision", icon=":material/show_chart:",
                         url_path="precision"),
    "confidence": st.Page("pages/confidence.py", title="Confidence", icon=":material/area_chart:",
                          url_path="confidence"),
    "significance": st.Page("pages/significance.py", title="Significance", icon=":material/compare_arrows:",
                            url_path="significance"),
    "threshold": st.Page("pages/threshold.py", title="Threshold", icon=":material/tune:", url_path="threshold"),
    "pairwise": st.Page("pages/pairwise.py", title="Pairwise", icon=":material/grid_on:", url_path="pairwise"),
    "roc": st.Page("pages/roc.py", title="ROC, DET, PR", icon=":material/ssid_chart:", url_path="roc"),
    "validation": st.Page("pages/validation.py", title="Validation", icon=":material/bar_chart:",
                          url_path="validation"),
    "across": st.Page("pages/across.py", title="Across samples", icon=":material/stacked_line_chart:",
                      url_path="across"),
    "uir": st.Page("pages/uir.py", title="Unanimous improvement", icon=":material/balance:", url_path="uir"),
    "annotate": st.Page("pages/annotate.py", title="Annotate", icon=":material/checklist:", url_path="annotate"),
    "systems": st.Page("pages/systems.py", title="Systems", icon=":material/leaderboard:", url_path="systems"),
})
names = list(common.PAGES)
common.open_aliased_path()  # /data: the Data page (served at /), not Streamlit's "Page not found"
page = st.navigation({"One candidate set": [common.PAGES[n] for n in names[:7]] + [common.PAGES["annotate"]],
                      "Several samples": [common.PAGES[n] for n in names[7:10]],
                      "Systems on a test set": [common.PAGES["systems"]]})

with st.sidebar:  # first: the browser loads the next page's code while this run goes on (evalcore_app/preload.py)
    preload.preload()
jobs.pin_dataset(common.view().dataset)  # kept in the store while this session uses it
common.forget_widgets_on_page_change(page.url_path)
try:
    serverdata.guard(page.url_path, common.view().dataset)  # a server set on a page of single candidates: say so
    with jobs.refusals_shown():  # work past the budget: said as the page's own refusals are (evalcore_app/jobs.py)
        page.run()
except common.PageDone:  # a page that has nothing more to show
    pass
except (TooLargeError, ServerDataError) as exc:  # a set too large for what the page shows: said in words
    st.info(esc(exc))
except WorkTooLargeError as exc:  # (one the page's code raised itself)
    st.error(esc(exc))
finally:  # the URL and the link must show what the page shows
    common.sync_url()
    with st.sidebar:
        st.caption("Are the differences between ranking methods real or chance? (Evert 2004)")
        view = common.view()
        if view.dataset:
            st.markdown(f"**Data:** {esc(cached.dataset_label(view.dataset))}")
        st.markdown("**Link to this view**")
        st.code(common.share_link(), language=None, wrap_lines=True)
        st.caption("Copy it (icon at the right) to show a colleague exactly this page, data and settings.")
        if page.url_path == "systems":  # its own signature and report (evalcore_app/systems.py)
            systems.sidebar()
        else:
            report.sidebar()
        present.caption_toggle()
