"""A student's feedback as one self-contained HTML page: the Markdown feedback rendered (raw HTML
in it escaped, never passed through), with the plots inline: the tile sweep's bars and each
timed check's speedup with its spread against the thresholds."""

from __future__ import annotations

import base64
import html
import io
import tempfile
from collections.abc import Sequence
from pathlib import Path

from markdown_it import MarkdownIt

from grader.report.chart import write_sweep_chart
from grader.report.markdown import render_markdown
from grader.results import Report


def speedup_png(report: Report) -> bytes | None:
    """Each timed check's speedup, its spread (2 relative standard errors) as an error bar, and
    the thresholds as lines; None where nothing was timed."""
    timed = [c for c in report.checks if "speedup" in c.figures]
    if not timed:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(5, 2.6), dpi=110)
    names = [c.name for c in timed]
    speedups = [float(c.figures["speedup"]) for c in timed]
    spreads = [
        2 * float(c.figures.get("rse", 0.0)) * s for c, s in zip(timed, speedups, strict=True)
    ]
    axes.barh(names, speedups, xerr=spreads, color="#4a7ab5", capsize=4)
    for check in timed:
        if "min_speedup" in check.figures:
            axes.axvline(float(check.figures["min_speedup"]), color="#b54a4a", linestyle="--")
    axes.set_xlabel("speedup over the baseline (dashed: the minimum to pass)")
    axes.set_title(f"{report.exercise} on {report.device.name}", fontsize=9)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    plt.close(figure)
    return buffer.getvalue()


def _sweep_png(report: Report) -> bytes | None:
    with tempfile.TemporaryDirectory() as scratch:
        path = write_sweep_chart(report, Path(scratch) / "sweep.png")
        return path.read_bytes() if path is not None else None


def _image(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode()
    return f'<p><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}"></p>'


def feedback_html(student: str, reports: Sequence[Report], more: str = "") -> str:
    """The page for one student, from their own reports only, then `more` (Markdown: what the
    batch found missing, or why nothing was graded)."""
    markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
    body = []
    for report in reports:
        body.append(markdown.render(render_markdown(report)))
        for png, alt in ((_sweep_png(report), "tile sweep"), (speedup_png(report), "speedup")):
            if png is not None:
                body.append(_image(png, f"{report.exercise}: {alt}"))
    if more:
        body.append(markdown.render(more))
    title = html.escape(f"Feedback: {student}")
    return (
        '<!doctype html>\n<html><head><meta charset="utf-8">'
        f"<title>{title}</title>"
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em}"
        "pre{white-space:pre-wrap}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )
