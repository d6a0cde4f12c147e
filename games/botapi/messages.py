"""One seat's view of a deal, as the competition protocol's messages (docs/bot-protocol.md).

``SeatFeed`` is fed the successive views of one seat (``engine.views.view_for(state,
seat)``, never anything else) and answers with the messages the seat's bot has not had
yet: ``notify`` messages for what happened (the deal beginning, tribute, resistance,
returns, every play and pass, the deal's end) and an ``act`` message when the seat is to
act. It keeps, with each ``act``, the engine action behind every entry of the
``actionList`` (``Pending``), so the bot's ``actIndex`` maps back to exactly one action.

Since every message is built from the seat's view, a bot never learns more than a person
in that seat could (R9.3-R9.5, R8: a card given back is seen by its two seats only).
Card counts above 10 are shown to people as "more than 10" (R9.3), but they follow from
public facts (27 dealt, public gifts and plays; ``games.bots.view``), so ``publicInfo``
gives them exactly, as the protocol does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.bots import protocol
from games.bots.view import Seen
from games.engine.cards import rank_index, sort_key
from games.engine.combos import Play
from games.engine.reading import Reading

STAGE_OF_PHASE = {"play": "play", "tribute": "tribute", "return": "back"}


@dataclass(frozen=True)
class Pending:
    """An ``act`` sent and not answered yet: the step it was sent at and, per entry of its
    ``actionList``, the engine action (a ``Play``, a card id for tribute and return, or
    None for ``PASS``)."""

    deal_id: int
    step: int
    phase: str
    behind: tuple


def _entry_of_move(move: dict[str, Any] | None, level: int) -> list | None:
    if move is None:
        return None
    if move.get("pass") or move.get("reading") is None:
        return list(protocol.PASS_ENTRY)
    return protocol.entry_of(move["cards"], Reading.from_json(move["reading"]), level)


def dealt_hand(view: dict[str, Any]) -> list[int]:
    """The hand the viewing seat was dealt, from its view alone: the cards it holds, the
    ones it played, gave as tribute or gave back, less the ones it was given (R8). This
    is what a seat joining mid-deal is sent as ``beginning``: with the tribute, return
    and play notifications that follow, a bot counting its cards ends with the hand it
    holds."""
    seat = view["viewer"]
    cards = list(view["hand"] or ())
    for move in view.get("history") or ():
        if move["seat"] == seat and not move.get("pass"):
            cards.extend(move["cards"])
    for gift in (view.get("tribute") or {}).get("gifts") or ():
        returned = gift.get("returned") if gift.get("returned_done") else None
        if gift.get("given") and gift["from"] == seat:
            cards.append(gift["card"])
            if returned is not None:
                cards.remove(returned)
        elif gift.get("given") and gift["to"] == seat:
            cards.remove(gift["card"])
            if returned is not None:
                cards.append(returned)
    level = rank_index(view["level"])
    return sorted(cards, key=lambda card: sort_key(card, level))


def _greater_after(history: list[dict[str, Any]]) -> list[dict[str, Any] | None]:
    """For each move of the history, the play on top of its trick once it was made."""
    out: list[dict[str, Any] | None] = []
    top: dict[str, Any] | None = None
    trick = None
    for move in history:
        if move.get("trick") != trick:
            trick, top = move.get("trick"), None
        if not move.get("pass"):
            top = move
        out.append(top)
    return out


@dataclass
class SeatFeed:
    """What one seat's bot has been told so far (see the module doc)."""

    position: int
    deal_id: int | None = None
    history_sent: int = 0
    tribute_sent: bool = False
    back_sent: bool = False
    anti_sent: bool = False
    over_sent: bool = False
    asked_step: int | None = None
    last_order: list[int] | None = None
    pending: Pending | None = None
    sent: list[dict] = field(default_factory=list, repr=False)

    def feed(self, deal_id: int, view: dict[str, Any]) -> list[dict]:
        """The messages for this view of deal ``deal_id`` that were not sent yet."""
        if view["viewer"] != self.position:
            raise ValueError("R1.1: a seat's feed reads that seat's view only")
        out: list[dict] = []
        if deal_id != self.deal_id:
            if self.deal_id is not None and not self.over_sent:
                self.last_order = None  # the previous deal's end was never seen
            self.deal_id, self.history_sent, self.asked_step, self.pending = deal_id, 0, None, None
            self.tribute_sent = self.back_sent = self.anti_sent = self.over_sent = False
            out.append({"type": "notify", "stage": "beginning",
                        "handCards": protocol.codes_of(dealt_hand(view)), "myPos": self.position})
        out.extend(self._tribute_notes(view))
        history = view.get("history") or []
        level = rank_index(view["level"])
        if len(history) > self.history_sent:
            greater = _greater_after(history)
            for index in range(self.history_sent, len(history)):
                move, top = history[index], greater[index]
                out.append({
                    "type": "notify", "stage": "play",
                    "curPos": move["seat"], "curAction": _entry_of_move(move, level),
                    "greaterPos": top["seat"] if top else -1, "greaterAction": _entry_of_move(top, level),
                })
            self.history_sent = len(history)
        if view.get("result") and not self.over_sent:
            self.over_sent = True
            self.pending = None
            order = list(view["result"]["places"])
            self.last_order = order
            hands = view.get("hands") or []
            out.append({
                "type": "notify", "stage": "episodeOver", "order": order, "curRank": view["level"],
                "restCards": [[seat, protocol.codes_of(cards)] for seat, cards in enumerate(hands) if cards],
            })
        act = self._act(deal_id, view)
        if act is not None:
            out.append(act)
        self.sent.extend(out)
        return out

    # ---- notifications ------------------------------------------------------------------

    def _tribute_notes(self, view: dict[str, Any]) -> list[dict]:
        tribute = view.get("tribute") or {}
        gifts = tribute.get("gifts") or []
        out = []
        if tribute.get("resisted") and not self.anti_sent:
            self.anti_sent = True
            donors = self._donors(tribute.get("kind"))
            out.append({"type": "notify", "stage": "anti-tribute", "antiNums": len(donors), "antiPos": donors})
        if gifts and not self.tribute_sent and all(g["given"] for g in gifts):
            self.tribute_sent = True
            out.append({"type": "notify", "stage": "tribute",
                        "result": [[g["from"], g["to"], protocol.code_of(g["card"])] for g in gifts]})
        if gifts and not self.back_sent and all(g["returned_done"] for g in gifts):
            self.back_sent = True
            # A card given back is seen only by its two seats (R8.4): others get null.
            out.append({"type": "notify", "stage": "back",
                        "result": [[g["to"], g["from"], None if g["returned"] is None else protocol.code_of(g["returned"])]
                                   for g in gifts]})
        return out

    def _donors(self, kind: str | None) -> list[int]:
        """The seats whose tribute was resisted (R8.5): the previous deal's last place, or
        its last two places for a double tribute, as this seat saw them end."""
        if not self.last_order:
            return []
        return sorted(self.last_order[2:] if kind == "double" else self.last_order[3:])

    # ---- the act message --------------------------------------------------------------------

    def _act(self, deal_id: int, view: dict[str, Any]) -> dict | None:
        stage = STAGE_OF_PHASE.get(view["phase"])
        if stage is None or self.position not in (view.get("to_act") or ()) or view.get("result"):
            return None
        if self.asked_step == view["step"]:
            return None
        self.asked_step = view["step"]
        level = rank_index(view["level"])
        seen = Seen.from_view(view)
        history = view.get("history") or []
        trick = view.get("trick") or []
        cur_pos, cur_action, greater_pos, greater_action = -1, None, -1, None
        if view["phase"] == "play":
            top = view.get("top")
            if top is not None and not view.get("leading"):
                reading = Reading.from_json(top["reading"])
                entries, behind = protocol.action_list(view["hand"], level, reading)
                last = history[-1] if history else None
                cur_pos, cur_action = (last["seat"], _entry_of_move(last, level)) if last else (-1, None)
                greater_pos, greater_action = top["seat"], _entry_of_move(top, level)
            else:
                entries, behind = protocol.action_list(view["hand"], level, None)
        else:
            kind = "tribute" if view["phase"] == "tribute" else "back"
            entries, behind, codes = [], [], set()
            for card in view.get("choices") or ():
                code = protocol.code_of(card)
                if code not in codes:
                    codes.add(code)
                    entries.append([kind, kind, [code]])
                    behind.append(card)
        play_area: list[Any] = [None] * 4
        for move in trick:
            play_area[move["seat"]] = _entry_of_move(move, level)
        self.pending = Pending(deal_id, view["step"], view["phase"], tuple(behind))
        return {
            "type": "act",
            "handCards": protocol.codes_of(view["hand"]),
            "publicInfo": [{"rest": seen.counts[seat], "playArea": play_area[seat]} for seat in range(4)],
            "selfRank": view["levels"]["us"],
            "oppoRank": view["levels"]["them"],
            "curRank": view["level"],
            "stage": stage,
            "curPos": cur_pos,
            "curAction": cur_action,
            "greaterPos": greater_pos,
            "greaterAction": greater_action,
            "actionList": entries,
            "indexRange": len(entries) - 1,
        }


def action_behind(pending: Pending, index: int) -> tuple[str, tuple[int, ...], Reading | None]:
    """The engine action (kind, cards, reading) behind entry ``index`` of an ``act``."""
    chosen = pending.behind[index]
    if pending.phase in ("tribute", "return"):
        return pending.phase, (chosen,), None
    if chosen is None:
        return "pass", (), None
    assert isinstance(chosen, Play)
    return "play", tuple(chosen.cards), chosen.reading
