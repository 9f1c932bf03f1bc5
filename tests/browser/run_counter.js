// Counts the app's script runs in a page (tests/browser/conftest.py, bench/bench_browser.py): see conftest.py.
(() => {
  const st = window.__stRuns = {started: 0, finished: 0, state: null, frame: 0, frameAtFinish: -1};
  const tick = () => { st.frame += 1; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  const varint = (bytes, at) => {
    let value = 0, shift = 0, byte;
    do { byte = bytes[at.i++]; value += (byte & 0x7f) * 2 ** shift; shift += 7; } while (byte & 0x80);
    return value;
  };
  const read = data => {  // the top-level fields of one ForwardMsg
    const bytes = new Uint8Array(data), at = {i: 0};
    while (at.i < bytes.length) {
      const key = varint(bytes, at), field = Math.floor(key / 8), type = key % 8;
      if (type === 0) {
        const value = varint(bytes, at);
        if (field === 6 && (value === 0 || value === 1)) { st.finished += 1; st.frameAtFinish = st.frame; }
      } else if (type === 2) { const length = varint(bytes, at); at.i += length; }
      else if (type === 1) { at.i += 8; } else if (type === 5) { at.i += 4; } else { return; }
    }
  };
  const Native = window.WebSocket;
  const Counting = function (...args) {
    const socket = new Native(...args);
    socket.addEventListener('message', event => {
      if (event.data instanceof ArrayBuffer) read(event.data);
      else if (event.data instanceof Blob) event.data.arrayBuffer().then(read);
    });
    return socket;
  };
  Counting.prototype = Native.prototype;
  Object.assign(Counting, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
  window.WebSocket = Counting;
  const attach = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app) { setTimeout(attach, 10); return; }
    st.state = app.getAttribute('data-test-script-state');
    if (st.state === 'running') st.started += 1;
    new MutationObserver(records => {
      const values = records.map(r => r.oldValue).concat([app.getAttribute('data-test-script-state')]);
      for (let i = 1; i < values.length; i++) {
        if (values[i - 1] !== 'running' && values[i] === 'running') st.started += 1;
      }
      st.state = values[values.length - 1];
    }).observe(app, {attributes: true, attributeOldValue: true, attributeFilter: ['data-test-script-state']});
  };
  attach();
})();
