"""Price-history charts: a terminal plot (plotext) and an image file, PNG or SVG (matplotlib, no display needed).

Prices hold between changes, so each series is drawn as steps (the price stays until the next point); a gap means
the offer was gone. Both libraries are imported only when a chart is drawn (``pip install 'gpuhub-core[charts]'``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

from gpuhub.history.series import PriceSeries

__all__ = ["MAX_SERIES", "render_file", "render_terminal"]

MAX_SERIES = 8
"""Charts draw at most this many series (the cheapest last prices first); the rest are only in the table."""
MIN_SPAN = dt.timedelta(minutes=2)
"""The shortest time axis a terminal chart draws (plotext widens an axis of one instant to decades)."""


def _steps(series: PriceSeries, since: dt.datetime | None, until: dt.datetime) -> list[list[tuple[dt.datetime,
                                                                                                    float]]]:
    """Runs of (time, price) corners of the step line; a run ends where the offer was gone."""
    runs: list[list[tuple[dt.datetime, float]]] = []
    points = series.window(since)
    for i, point in enumerate(points):
        end = points[i + 1].at if i + 1 < len(points) else until
        if point.price is None:
            continue
        price = float(point.price)
        if runs and runs[-1] and runs[-1][-1][0] == point.at:
            runs[-1].extend([(point.at, price), (end, price)])
        else:
            runs.append([(point.at, price), (end, price)])
    return runs


def _pick(series: Sequence[PriceSeries], since: dt.datetime | None) -> list[PriceSeries]:
    def last(s: PriceSeries) -> float:
        value = s.stats(since)["last"]
        return float(value) if value is not None else float("inf")

    return sorted(series, key=last)[:MAX_SERIES]


def render_terminal(series: Sequence[PriceSeries], since: dt.datetime | None, *, width: int = 100,
                    height: int = 24, title: str = "price per hour", now: dt.datetime | None = None) -> str:
    """The chart as text for a terminal (plotext; colours off, so it pastes anywhere).

    Raises:
        ImportError: plotext is not installed.
    """
    import plotext as plt

    until = now or dt.datetime.now(dt.timezone.utc)
    picked = _pick(series, since)
    first = min((p.at for s in picked for p in s.window(since)), default=until)
    until = max(until, first + MIN_SPAN)  # snapshots seconds apart: an axis of minutes, not of a century
    plt.clear_figure()
    plt.plotsize(width, height)
    plt.theme("clear")
    plt.date_form("Y-m-d H:M:S")
    plt.title(title)
    for s in picked:
        for n, run in enumerate(_steps(s, since, until)):
            plt.plot([t.strftime("%Y-%m-%d %H:%M:%S") for t, _ in run], [p for _, p in run],
                     label=s.label if n == 0 else None, marker="braille")
    text: str = plt.uncolorize(plt.build())
    plt.clear_figure()
    return text


def render_file(series: Sequence[PriceSeries], since: dt.datetime | None, path: Path, *,
                title: str = "price per hour", now: dt.datetime | None = None) -> Path:
    """Write the chart to ``path``: PNG or SVG by its suffix.

    Raises:
        ValueError: the suffix is neither ``.png`` nor ``.svg``.
        ImportError: matplotlib is not installed.
    """
    suffix = path.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise ValueError(f"{path}: the chart file must end in .png or .svg")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.dates as mdates
    import matplotlib.pyplot as plt

    until = now or dt.datetime.now(dt.timezone.utc)
    figure, axes = plt.subplots(figsize=(10, 5), dpi=110)
    currencies = set()
    for s in _pick(series, since):
        currencies.add(str(s.offer.get("currency") or ""))
        colour = None
        for n, run in enumerate(_steps(s, since, until)):
            (line,) = axes.plot([t for t, _ in run], [p for _, p in run],  # type: ignore[arg-type]
                                drawstyle="steps-post", color=colour,
                                label=s.label if n == 0 else None, linewidth=1.6)
            colour = line.get_color()
    axes.set_title(title)
    axes.set_ylabel(f"price per hour ({', '.join(sorted(c for c in currencies if c)) or '?'})")
    axes.grid(True, alpha=0.3)
    locator = mdates.AutoDateLocator()  # type: ignore[no-untyped-call]
    axes.xaxis.set_major_locator(locator)
    axes.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]
    if axes.get_legend_handles_labels()[0]:
        axes.legend(fontsize=8, loc="best")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format=suffix[1:], metadata={"Software": "gpuhub"} if suffix == ".png" else None)
    plt.close(figure)
    return path
