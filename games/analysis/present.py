"""The analysis as the replay page shows it: marks by the log, the step's verdict, the
chance-of-winning plot (SVG drawn here, on the server), next and previous mistake, and
each seat's accuracy, for the deal and for its match.

Read from the stored verdicts (``DealAnalysis.data``, ``games.bots.analysis``) of a
finished deal only: the verdicts name the better move from the acting seat's hand.
Everything here is in the reader's language (the bots' English names and reasons go
through ``games.rules.words``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from games.analysis.services import is_current
from games.bots.analysis import ANALYSIS_VERSION, accuracy_of
from games.live.render import cards_context
from games.models import DealAnalysis, Match
from games.rules.words import action_text, advice_text

# Marks worth stepping to with "next mistake" (the coach's threshold and above).
MISTAKES = ("mistake", "blunder")
JUDGED = ("best", "good", "inaccuracy", "mistake", "blunder")
# Lichess-style annotation of each mark, and its class on the page.
SYMBOLS = {"best": "★", "good": "✓", "inaccuracy": "?!", "mistake": "?", "blunder": "??", "only": ""}

# The plot's drawing area, in SVG user units (the SVG scales to its box).
PLOT_W, PLOT_H, PLOT_PAD = 600, 150, 6


def mark_label(mark: str) -> str:
    return {
        "best": pgettext("analysis mark", "Best move"),
        "good": pgettext("analysis mark", "Good"),
        "inaccuracy": pgettext("analysis mark", "Inaccuracy"),
        "mistake": pgettext("analysis mark", "Mistake"),
        "blunder": pgettext("analysis mark", "Blunder"),
        "only": pgettext("analysis mark", "Only move"),
    }[mark]


def _sentence(text: str) -> str:
    """A reason shown on its own: its first letter capitalised."""
    return text[:1].upper() + text[1:]


def _levels(value: float) -> str:
    return formats.number_format(value, 2)


def _percent(chance: float) -> int:
    return round(100 * chance)


@dataclass
class Verdicts:
    """One finished deal's stored verdicts, read for the page; ``who`` (0-3 or None) is
    the seat whose marks the page shows (the one-seat filter)."""

    analysis: DealAnalysis
    level: int
    who: int | None = None

    @property
    def decisions(self) -> list[dict[str, Any]]:
        return self.analysis.data["decisions"]

    def decision_at(self, step: int) -> dict[str, Any] | None:
        """The decision that made ``step`` (steps count from 1 for the first action)."""
        if 1 <= step <= len(self.decisions):
            return self.decisions[step - 1]
        return None

    def shown(self, decision: dict[str, Any]) -> bool:
        return self.who is None or decision["seat"] == self.who

    def mistake_steps(self) -> list[int]:
        return [d["index"] + 1 for d in self.decisions if d["mark"] in MISTAKES and self.shown(d)]

    def next_mistake(self, step: int) -> int | None:
        return next((s for s in self.mistake_steps() if s > step), None)

    def previous_mistake(self, step: int) -> int | None:
        return next((s for s in reversed(self.mistake_steps()) if s < step), None)

    # ----------------------------------------------------------------------------------

    def log_marks(self) -> dict[int, dict[str, str]]:
        """step -> the mark beside that step in the log (judged decisions of the shown
        seats only)."""
        marks = {}
        for decision in self.decisions:
            if decision["mark"] in JUDGED and self.shown(decision):
                marks[decision["index"] + 1] = {
                    "mark": decision["mark"], "symbol": SYMBOLS[decision["mark"]], "label": mark_label(decision["mark"]),
                }
        return marks

    def seats(self, names: dict[int, str]) -> list[dict[str, Any]]:
        """Each seat's accuracy and count of each mark, for the summary."""
        out = []
        for seat in range(4):
            mine = [d for d in self.decisions if d["seat"] == seat]
            accuracy = self.analysis.data["accuracy"][seat]
            out.append({
                "position": seat,
                "number": seat + 1,
                "team": "A" if seat % 2 == 0 else "B",
                "name": names.get(seat, ""),
                "accuracy": None if accuracy is None else formats.number_format(accuracy, 0),
                "judged": sum(d["mark"] in JUDGED for d in mine),
                "inaccuracies": sum(d["mark"] == "inaccuracy" for d in mine),
                "mistakes": sum(d["mark"] == "mistake" for d in mine),
                "blunders": sum(d["mark"] == "blunder" for d in mine),
                "automatic": sum(d.get("actor", "human") not in ("human", "bot") for d in mine),
            })
        return out

    def verdict(self, step: int) -> dict[str, Any] | None:
        """The verdict on the decision that made ``step``, in words."""
        decision = self.decision_at(step)
        if decision is None:
            return None
        mark = decision["mark"]
        out: dict[str, Any] = {
            "seat": decision["seat"] + 1,
            "mark": mark,
            "symbol": SYMBOLS[mark],
            "label": mark_label(mark),
            "played": action_text(decision["played"]),
            "played_cards": cards_context(decision["played_cards"], self.level),
            "automatic": decision.get("actor", "human") not in ("human", "bot"),
            "chance_a": None if decision["win_chance_a"] is None else _percent(decision["win_chance_a"]),
            "reason": _sentence(advice_text(decision["reason"])) if decision["reason"] else "",
            "better": None,
        }
        if decision["played_value"] is not None and decision["best_value"] is not None:
            out["played_value"] = _levels(decision["played_value"])
            out["best_value"] = _levels(decision["best_value"])
        if mark in JUDGED and mark != "best":
            out["loss"] = _levels(decision["loss"])
        if decision["better"]:
            out["better"] = {
                "name": action_text(decision["better"]),
                "cards": cards_context(decision["better_cards"], self.level),
            }
        return out

    # ----------------------------------------------------------------------------------
    # The plot

    def chances(self) -> list[float]:
        """Team A's chance of winning the deal at every step (0.5 as dealt; the result
        after the last action, games/bots/analysis.py)."""
        chances = [0.5]
        for decision in self.decisions:
            chance = decision["win_chance_a"]
            chances.append(chances[-1] if chance is None else chance)
        return chances

    def errors(self) -> list[float]:
        """The 95% sampling error of each step's chance (0 as dealt and at the result;
        0 too for an analysis stored before errors were kept)."""
        errors = [0.0]
        for decision in self.decisions:
            error = decision.get("win_chance_error")
            errors.append(errors[-1] if error is None else error)
        return errors

    def plot(self, step: int, url: Callable[[int], str]) -> dict[str, Any]:
        """The geometry of the plot of team A's chance of winning the deal, step by step:
        the line, the area above and below even, the mistakes as points that link to
        their step, and the current step."""
        chances = self.chances()
        last = max(1, len(chances) - 1)
        inner_w, inner_h = PLOT_W - 2 * PLOT_PAD, PLOT_H - 2 * PLOT_PAD

        def x(s: int) -> float:
            return round(PLOT_PAD + inner_w * s / last, 1)

        def y(chance: float) -> float:
            return round(PLOT_PAD + inner_h * (1.0 - chance), 1)

        line = " ".join(f"{x(s)},{y(c)}" for s, c in enumerate(chances))
        # The sampling error as a band around the line (each point's 95% interval).
        errors = self.errors()
        upper = [f"{x(s)},{y(min(1.0, c + e))}" for s, (c, e) in enumerate(zip(chances, errors))]
        lower = [f"{x(s)},{y(max(0.0, c - e))}" for s, (c, e) in enumerate(zip(chances, errors))]
        band = " ".join(upper + lower[::-1])
        middle = y(0.5)
        area = f"{x(0)},{middle} {line} {x(len(chances) - 1)},{middle}"
        points = []
        for decision in self.decisions:
            if decision["mark"] not in ("inaccuracy",) + MISTAKES or not self.shown(decision):
                continue
            s = decision["index"] + 1
            points.append({
                "x": x(s), "y": y(chances[s]), "step": s, "url": url(s), "mark": decision["mark"],
                "title": _("Step %(step)s: seat %(seat)s, %(mark)s") % {
                    "step": s, "seat": decision["seat"] + 1, "mark": mark_label(decision["mark"]).lower()},
            })
        current = min(step, len(chances) - 1)
        return {
            "width": PLOT_W, "height": PLOT_H, "middle": middle, "line": line, "area": area, "band": band,
            "top": PLOT_PAD, "bottom": PLOT_H - PLOT_PAD, "left": PLOT_PAD, "right": PLOT_W - PLOT_PAD,
            "inner_width": inner_w, "upper_height": round(middle - PLOT_PAD, 1),
            "points": points,
            "current_x": x(current), "current_y": y(chances[current]),
            "current_chance": _percent(chances[current]),
            "current_error": _percent(errors[current]),
            "description": _(
                "Team A's chance of winning the deal after each step, from %(first)s%% as dealt to %(end)s%% at "
                "the end; %(count)s marked moves shown as points."
            ) % {"first": _percent(chances[0]), "end": _percent(chances[-1]), "count": len(points)},
        }


def verdicts_for(analysis: DealAnalysis | None, level: int, who: int | None = None) -> Verdicts | None:
    """The verdicts to show, when the deal has a finished analysis (of any version)."""
    if analysis is None or analysis.status != DealAnalysis.Status.DONE or not analysis.data:
        return None
    return Verdicts(analysis, level, who)


def status_of(analysis: DealAnalysis | None) -> dict[str, Any]:
    """The analysis's state in words, for the status panel and its progress bar."""
    if analysis is None:
        return {"status": "none", "text": _("Not analysed yet.")}
    status = analysis.status
    if status == DealAnalysis.Status.QUEUED:
        return {"status": status, "text": _("The analysis is waiting its turn…"), "done": 0, "total": 0}
    if status == DealAnalysis.Status.RUNNING:
        percent = round(100 * analysis.done / analysis.total) if analysis.total else 0
        return {"status": status, "done": analysis.done, "total": analysis.total, "percent": percent,
                "text": _("Analysing: %(done)s of %(total)s decisions judged") % {
                    "done": analysis.done, "total": analysis.total}}
    if status == DealAnalysis.Status.FAILED:
        return {"status": status, "text": _("The analysis failed. Ask for it again, or tell staff if it fails twice.")}
    outdated = not is_current(analysis)
    return {"status": status, "outdated": outdated,
            "text": _("Analysed by an older version of the expert.") if outdated else _("Analysed by the expert.")}


def match_accuracy(match: Match) -> list[str | None] | None:
    """Each seat's accuracy over every analysed deal of the match (the mean over all its
    judged decisions), or None when no deal of the match is analysed."""
    losses: list[list[float]] = [[], [], [], []]
    found = False
    for data in DealAnalysis.objects.filter(deal__match=match, status=DealAnalysis.Status.DONE).values_list(
        "data", flat=True
    ):
        found = True
        for decision in data["decisions"]:
            if decision["mark"] in JUDGED:
                losses[decision["seat"]].append(decision["loss"])
    if not found:
        return None
    out: list[str | None] = []
    for seat_losses in losses:
        accuracy = accuracy_of(seat_losses)
        out.append(None if accuracy is None else formats.number_format(accuracy, 0))
    return out


def analysed_deal_ids(deal_ids: Sequence[int]) -> set[int]:
    """Which of these deals have a finished analysis (for the match page's links)."""
    return set(DealAnalysis.objects.filter(deal_id__in=deal_ids, status=DealAnalysis.Status.DONE).values_list(
        "deal_id", flat=True))


__all__ = [
    "ANALYSIS_VERSION",
    "Verdicts",
    "analysed_deal_ids",
    "mark_label",
    "match_accuracy",
    "status_of",
    "verdicts_for",
]
