"""The player page's rating chart: an SVG drawn on the server (no script), like the
analysis plot: the rating after each rated deal, oldest on the left, with grid lines at
round ratings and the months the deals were played in."""

from __future__ import annotations

import datetime
import math

from django.utils import formats
from django.utils.translation import gettext as _

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 44, 8, 10, 24


def _step(span: float) -> int:
    """A round distance between grid lines for a span of ratings: 25, 50, 100, 200 ..."""
    for step in (25, 50, 100, 200, 250, 500):
        if span / step <= 5:
            return step
    return 1000


def rating_chart(points: list[tuple[datetime.datetime, float]]) -> dict | None:
    """Geometry of the chart for ``points`` (when, rating), oldest first; None with
    fewer than two points."""
    if len(points) < 2:
        return None
    values = [value for _when, value in points]
    low, high = min(values), max(values)
    step = _step(max(high - low, 50))
    bottom_value = math.floor(low / step) * step
    top_value = math.ceil(high / step) * step
    if top_value == bottom_value:
        top_value += step
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(index: int) -> float:
        return round(LEFT + inner_w * index / (len(points) - 1), 1)

    def y(value: float) -> float:
        return round(TOP + inner_h * (top_value - value) / (top_value - bottom_value), 1)

    grid = [{"y": y(value), "label": str(value)} for value in range(int(bottom_value), int(top_value) + 1, step)]
    months = []
    seen = None
    for index, (when, _value) in enumerate(points):
        month = (when.year, when.month)
        if month != seen:
            seen = month
            months.append({"x": x(index), "label": formats.date_format(when, "YEAR_MONTH_FORMAT")})
    # Month labels closer than 70 px would overlap: keep the first of each crowd.
    spaced = []
    for month in months:
        if not spaced or month["x"] - spaced[-1]["x"] >= 70:
            spaced.append(month)
    line = " ".join(f"{x(i)},{y(v)}" for i, v in enumerate(values))
    first, last = values[0], values[-1]
    return {
        "width": WIDTH, "height": HEIGHT, "left": LEFT, "right": WIDTH - RIGHT, "top": TOP, "bottom": HEIGHT - BOTTOM,
        "grid": grid, "months": spaced, "line": line,
        "last_x": x(len(values) - 1), "last_y": y(last),
        "description": _("Rating over the last %(count)s rated deals: from %(first)s to %(last)s, lowest %(low)s, "
                         "highest %(high)s.") % {"count": len(values) - 1, "first": round(first), "last": round(last),
                                                  "low": round(low), "high": round(high)},
    }
