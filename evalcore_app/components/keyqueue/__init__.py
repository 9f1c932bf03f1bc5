"""A key queue for annotating: the candidate on screen, marked by key presses that are never lost or merged.

Streamlit sends a widget's value when the browser is ready and merges changes that fall between two runs, so two
quick key presses on buttons can become one, and a press during a run can land on the candidate the run is about
to replace. This component keeps the presses in the browser instead: each press (``t``, ``f``, ``u`` or ``z``,
or a click on its button) becomes an event with a sequence number and the place and id of the candidate then on
screen; the component shows the next candidate at once (from a window of upcoming ones the server sent), and sends
the whole queue of events the server has not acknowledged yet, in order, as its value. The server applies each
event once (:func:`unapplied`), in sequence order, and acknowledges the last one it applied in the next render;
the component drops what was acknowledged. Sending the whole queue each time makes merged updates harmless: a
later value holds every earlier event.

The queue lives on the page around the component (keyed by the widget key), not in the component's frame: when
Streamlit builds the frame anew (an element appearing above it can make it do so), the new frame takes over the
queue, its client id and sequence numbers, and no press is lost.

Keys are read from the page around the component too (it is served from the same origin), except while focus is
in a text field, a number field, a select or an editable area, with Ctrl, Alt or Meta held, or on a key's
auto-repeat. The frontend is ``frontend/index.html``: plain JavaScript speaking Streamlit's component messages.
"""

from __future__ import annotations

from pathlib import Path

import streamlit.components.v1 as components

FRONTEND = Path(__file__).parent / "frontend"
KEYS = {"t": "TP", "f": "FP", "u": "unsure", "z": "undo"}

_declared: list = []


def _component(**kwargs):
    """The component, declared at its first use in a run: Streamlit registers a declared component only where a
    script runs, so one declared at import by the server's warm-up (evalcore_app.serve.import_app) would never be served."""
    if not _declared:
        _declared.append(components.declare_component("keyqueue", path=str(FRONTEND)))
    return _declared[0](**kwargs)


def key_queue(items: list[dict], *, recent: list[dict], total: int, done: int, acked: dict, context: str, key: str,
              keys: dict[str, str] = KEYS, height: int = 230):
    """Show the candidate to mark and queue the annotator's presses.

    Parameters
    ----------
    items : list of dict
        The next places to annotate, in order: ``position``, ``candidate``, ``title`` (a line of text) and
        ``cells`` (pairs of column name and value, shown as text).
    recent : list of dict
        The annotator's last applied changes, most recent last (``position``, ``candidate``, ``title``,
        ``cells``, ``reopens``: whether undoing it leaves the place unmarked), so an undo shows its candidate at
        once.
    total, done : int
        The sample's size and the places the annotator has marked (as committed).
    acked : dict
        ``{"client": id, "seq": n}``: the last event applied of that browser client.
    context : str
        What the presses are for (e.g. the sample and the annotator); each event carries it, so the server can
        refuse a press made for another.
    key : str
        The widget key; the value is ``{"client": id, "events": [...]}`` (see :func:`unapplied`).

    Returns
    -------
    dict or None
        The queue as last sent.
    """
    return _component(items=items, recent=recent, total=int(total), done=int(done), acked=acked, context=context,
                      keys=keys, name=key, key=key, default=None, height=height)


def unapplied(value, applied: dict) -> tuple[str | None, list[dict]]:
    """The events of a queue value not applied yet, in sequence order: (client, events).

    ``applied`` maps a client id to the last sequence number applied for it; events at or below it are
    dropped, so an event is applied once even when the browser sends it again. Malformed events are dropped.
    """
    if not isinstance(value, dict) or not isinstance(value.get("client"), str) or len(value["client"]) > 64:
        return None, []
    client = value["client"]
    last = applied.get(client, 0)
    events = []
    for event in value.get("events") or []:
        if not isinstance(event, dict):
            continue
        seq, action = event.get("seq"), event.get("action")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq <= last or action not in KEYS.values():
            continue
        if action != "undo" and not (isinstance(event.get("position"), int) and isinstance(event.get("candidate"),
                                                                                           int)):
            continue
        events.append(event)
    events.sort(key=lambda e: e["seq"])
    unique = [e for i, e in enumerate(events) if i == 0 or e["seq"] != events[i - 1]["seq"]]
    return client, unique
