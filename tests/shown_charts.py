"""The figures a page shows under AppTest, in page order, as plotly JSON: ``st.plotly_chart``'s and those drawn in
place by :mod:`evalcore_app.components.plot` (a component whose data carries the figure's JSON), so that a test reads every
figure on a page whichever way it is drawn, and an assertion that a page shows no figure cannot pass by looking
for the wrong element."""

from __future__ import annotations

import json

import plotly.io

from evalcore_app.components.plot import COMPONENT


def _walk(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _walk(child)


def specs(at) -> list[str]:
    """The JSON of every figure in the page's main area, in the order shown."""
    out = []
    for node in _walk(at.main):
        if node.type == "plotly_chart":
            out.append(node.proto.spec)
        elif node.type == "bidi_component" and node.proto.component_name == COMPONENT:
            out.append(json.loads(node.proto.json)["spec"])
    return out


def figures(at) -> list:
    """Every figure in the page's main area as a ``plotly.graph_objects.Figure``, in the order shown."""
    return [plotly.io.from_json(spec) for spec in specs(at)]
