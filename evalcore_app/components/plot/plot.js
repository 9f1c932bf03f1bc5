// A Plotly graph that stays on the page from one run to the next (see __init__.py). Streamlit calls this function
// with the element's data on every run; the graph is kept on the element and redrawn only for another figure.
const loading = {};
function loadPlotly(src) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  const preloading = window.__evalcoreScripts && window.__evalcoreScripts[src];  // evalcore_app/preload.py's, under way
  if (preloading && !loading[src]) loading[src] = preloading.then(() => {
    if (!window.Plotly) throw new Error('no Plotly in ' + src);
    return window.Plotly;
  }).catch(error => { delete loading[src]; throw error; });
  if (!loading[src]) loading[src] = new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = src;
    script.onload = () => (window.Plotly ? resolve(window.Plotly) : reject(new Error('no Plotly in ' + src)));
    script.onerror = () => { delete loading[src]; reject(new Error('could not load ' + src)); };
    document.head.appendChild(script);
  });
  return loading[src];
}
export default function (component) {
  const { data, parentElement } = component;
  let host = parentElement.querySelector(':scope > .evalcore-chart');
  if (!host) {
    host = document.createElement('div');
    host.className = 'evalcore-chart';
    host.setAttribute('data-testid', 'stPlotlyChart');
    host.setAttribute('data-draws', '0');
    const graph = document.createElement('div');
    host.appendChild(graph);
    parentElement.appendChild(host);
    host.graph = graph;
    // Plotly's own resize listener is on the window and would outlive the element; this observer goes with it
    let width = 0;
    new ResizeObserver(entries => {
      const now = Math.round(entries[0].contentRect.width);
      if (now !== width && width && window.Plotly && graph._fullLayout) window.Plotly.Plots.resize(graph);
      width = now;
    }).observe(host);
  }
  if (!data || host.wanted === data.hash) return;
  host.wanted = data.hash;
  host.setAttribute('aria-busy', 'true');
  loadPlotly(data.src).then(Plotly => {
    if (host.wanted !== data.hash) return;  // a newer figure came while plotly.js loaded
    const fig = JSON.parse(data.spec);
    return Plotly.react(host.graph, fig.data, fig.layout, {displaylogo: false, responsive: false}).then(() => {
      if (host.wanted !== data.hash) return;
      host.setAttribute('data-draws', String(Number(host.getAttribute('data-draws')) + 1));
      host.removeAttribute('aria-busy');
    });
  }).then(() => { const note = host.querySelector(':scope > .evalcore-chart-error'); if (note) note.remove(); })
    .catch(error => {
      let note = host.querySelector(':scope > .evalcore-chart-error');
      if (!note) { note = document.createElement('p'); note.className = 'evalcore-chart-error'; host.prepend(note); }
      note.textContent = 'This figure could not be drawn: ' + error.message + '. Reload the page; if it stays, '
        + 'tell the server\'s administrator.';
      host.removeAttribute('aria-busy');
    });
}
