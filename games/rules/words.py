"""The engine's and the bots' words in the reader's language.

The rules engine (``games/engine/``) and the bots (``games/bots/``) are plain Python
without Django: they explain themselves in English ("R4.5: a straight needs 5
consecutive ranks", "pair of 10s", "Team A finished 1-2: +3, 2 -> 5"). This module is
where those words are shown to a person: each is rebuilt from translated parts, never by
translating English word by word:

- ``reading_label`` names a play from its shape and ranks;
- ``settlement_text`` says a deal's result from its numbers (R9.6);
- ``reason_text`` turns an engine reason ("R4.5: ...") into the reader's language by
  recognising which of the engine's sentences it is, with its parts translated;
- ``rule_links`` draws every rule id in a text as a link to its rule on ``/rules/``.

An engine sentence this module does not know stays in English (tests check that every
sentence the engine can give at a table is known).
"""

from __future__ import annotations

import re
from typing import Callable

from django.urls import reverse
from django.utils.html import escape, format_html
from django.utils.safestring import SafeData, SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils import formats
from django.utils.translation import gettext_lazy, ngettext

from games.engine.cards import RANKS
from games.engine.reading import (
    BOMB, FULL_HOUSE, JOKER_BOMB, PAIR, PAIR_RUN, RUN_LENGTH, SINGLE, STRAIGHT, STRAIGHT_FLUSH,
    TRIPLE, TRIPLE_RUN, Reading, shown_rank,
)

RULE_ID = re.compile(r"\bR(?:1[0-3]|[1-9])(?:\.(?:1[0-2]|[1-9]))?\b")

# --------------------------------------------------------------------------------------
# Ranks and plays


def rank_text(rank: int) -> str:
    """A rank as the reader writes it: 10 for T, jokers by name (R1.4)."""
    if rank == 13:
        return _("small joker")
    if rank == 14:
        return _("big joker")
    return shown_rank(rank)


_BOMB_NAMES = {
    4: gettext_lazy("bomb of four %(rank)ss"),
    5: gettext_lazy("bomb of five %(rank)ss"),
    6: gettext_lazy("bomb of six %(rank)ss"),
    7: gettext_lazy("bomb of seven %(rank)ss"),
    8: gettext_lazy("bomb of eight %(rank)ss"),
    9: gettext_lazy("bomb of nine %(rank)ss"),
    10: gettext_lazy("bomb of ten %(rank)ss"),
}
_RUN_NAMES = {
    STRAIGHT: gettext_lazy("straight %(low)s-%(high)s"),
    PAIR_RUN: gettext_lazy("pair run %(low)s-%(high)s"),
    TRIPLE_RUN: gettext_lazy("triple run %(low)s-%(high)s"),
    STRAIGHT_FLUSH: gettext_lazy("straight flush %(low)s-%(high)s"),
}


def reading_label(reading: Reading) -> str:
    """A play's name in the reader's language: "pair of 10s" / "对10"."""
    shape, key = reading.shape, reading.key
    rank = {"rank": rank_text(key)} if shape not in (JOKER_BOMB,) else {}
    if shape == SINGLE:
        return _("single %(rank)s") % rank
    if shape == PAIR:
        return _("pair of %(rank)ss") % rank
    if shape == TRIPLE:
        return _("three %(rank)ss") % rank
    if shape == FULL_HOUSE:
        return _("full house, three %(rank)ss") % rank
    if shape == BOMB:
        return str(_BOMB_NAMES[reading.size]) % rank
    if shape == JOKER_BOMB:
        return _("joker bomb")
    length = RUN_LENGTH[shape]
    low = key - length + 1
    return str(_RUN_NAMES[shape]) % {"low": "A" if low < 0 else shown_rank(low), "high": shown_rank(key)}


_SHOWN_RANKS = {shown_rank(r): r for r in range(len(RANKS))}
_ENGLISH_RANK = r"(?:10|[2-9JQKA]|small joker|big joker)"
_NAME_PATTERNS: list[tuple[re.Pattern, Callable[[re.Match], Reading]]] = []


def _rank_of(text: str) -> int:
    if text == "small joker":
        return 13
    if text == "big joker":
        return 14
    return _SHOWN_RANKS[text]


def _name_pattern(regex: str):
    def register(build):
        _NAME_PATTERNS.append((re.compile(regex + r"\Z"), build))
        return build
    return register


@_name_pattern(rf"single (?P<r>{_ENGLISH_RANK})")
def _build(m):
    return Reading(SINGLE, _rank_of(m["r"]), 1)


@_name_pattern(rf"pair of (?P<r>{_ENGLISH_RANK})s")
def _build(m):
    return Reading(PAIR, _rank_of(m["r"]), 2)


@_name_pattern(rf"three (?P<r>{_ENGLISH_RANK})s")
def _build(m):
    return Reading(TRIPLE, _rank_of(m["r"]), 3)


@_name_pattern(rf"full house, three (?P<r>{_ENGLISH_RANK})s")
def _build(m):
    return Reading(FULL_HOUSE, _rank_of(m["r"]), 5)


_SIZE_WORDS = {"four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}


@_name_pattern(rf"bomb of (?P<n>four|five|six|seven|eight|nine|ten) (?P<r>{_ENGLISH_RANK})s")
def _build(m):
    return Reading(BOMB, _rank_of(m["r"]), _SIZE_WORDS[m["n"]])


@_name_pattern(r"joker bomb")
def _build(m):
    return Reading(JOKER_BOMB, 0, 4)


@_name_pattern(rf"(?P<s>straight flush|straight|pair run|triple run) (?P<low>{_ENGLISH_RANK})-(?P<high>{_ENGLISH_RANK})")
def _build(m):
    shape = {"straight": STRAIGHT, "pair run": PAIR_RUN, "triple run": TRIPLE_RUN, "straight flush": STRAIGHT_FLUSH}[m["s"]]
    return Reading(shape, _rank_of(m["high"]), RUN_LENGTH[shape] * {STRAIGHT: 1, STRAIGHT_FLUSH: 1, PAIR_RUN: 2, TRIPLE_RUN: 3}[shape])


del _build


def reading_from_name(name: str) -> Reading | None:
    """The play an English name (``Reading.name``) stands for, or None."""
    for pattern, build in _NAME_PATTERNS:
        m = pattern.match(name)
        if m:
            return build(m)
    return None


def name_text(name: str) -> str:
    """An English play name (``Reading.name``) in the reader's language."""
    reading = reading_from_name(name)
    return reading_label(reading) if reading is not None else name


def names_text(names: str, separator: str) -> str:
    """Several English play names joined by ``separator`` (", " or " or "), translated."""
    parts = [name_text(n) for n in names.split(separator)]
    if separator == " or ":
        return _(" or ").join(parts)
    return _(", ").join(parts)


# --------------------------------------------------------------------------------------
# Settlement (R7, R9.6)


_LEVEL = r"(?:10|[2-9JQKA])"
_FINISH = r"Team (?P<team>[AB]) finished 1-(?P<place>[234]): \+(?P<advance>[123])"
_SETTLEMENTS = [(re.compile(p + r"\Z"), t) for p, t in [
    (_FINISH + r"\. 1-[23] at A: match won", gettext_lazy("%(finish)s. 1-%(place)s at A: match won")),
    (_FINISH + r"\. 1-4 at A: stay on A", gettext_lazy("%(finish)s. 1-4 at A: stay on A")),
    (_FINISH + rf"\. Already at A, but this deal was played at (?P<active>{_LEVEL}): stay on A, not a match win",
     gettext_lazy("%(finish)s. Already at A, but this deal was played at %(active)s: stay on A, not a match win")),
    (_FINISH + rf", (?P<old>{_LEVEL}) -> A\. (?P=old) \+(?P=advance) reaches A, not a match win",
     gettext_lazy("%(finish)s, %(old)s -> A. %(old)s +%(advance)s reaches A, not a match win")),
    (_FINISH + rf", (?P<old>{_LEVEL}) -> (?P<new>{_LEVEL})", gettext_lazy("%(finish)s, %(old)s -> %(new)s")),
]]


def settlement_text(explanation: str) -> str:
    """A finished deal's settlement in words (R9.6) in the reader's language, from the
    engine's sentence (``Settlement.explanation``: "Team A finished 1-2: +3, 2 -> 5")."""
    for pattern, template in _SETTLEMENTS:
        m = pattern.match(explanation or "")
        if m:
            parts = m.groupdict()
            finish = _("Team %(team)s finished 1-%(place)s: +%(advance)s") % parts
            return str(template) % dict(parts, finish=finish)
    return explanation or ""


# --------------------------------------------------------------------------------------
# The engine's reasons


_SEAT = r"seat (?P<seat>[1-4])"
_NAMES = r"(?P<names>.+)"
_RUN = r"(?P<run>[0-9JQKA]+(?:-[0-9JQKA]+)+)"
_COUNT_WORDS = {"no": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10}

# (the engine's sentence as a pattern, the sentence in the reader's language). Named
# groups are the sentence's parts: ``name``/``top``/``play`` are play names, ``names``
# several of them, ``seat`` a seat number, ``rank`` a rank, ``kinds`` a count in words.
_REASONS: list[tuple[re.Pattern, object]] = [(re.compile(p + r"\Z"), t) for p, t in [
    # combos.explain_not_combination
    (r"a play needs at least one card", gettext_lazy("a play needs at least one card")),
    (r"these cards are a (?P<names>.+)", gettext_lazy("these cards are a %(names)s")),
    (r"no combination has more than 10 cards \(a bomb of 8 plus 2 wilds\)",
     gettext_lazy("no combination has more than 10 cards (a bomb of 8 plus 2 wilds)")),
    (r"a wild never stands for a joker", gettext_lazy("a wild never stands for a joker")),
    (r"a small and a big joker are not a pair", gettext_lazy("a small and a big joker are not a pair")),
    (r"the joker bomb is exactly SJ SJ BJ BJ", gettext_lazy("the joker bomb is exactly SJ SJ BJ BJ")),
    (r"a wild never joins the joker bomb", gettext_lazy("a wild never joins the joker bomb")),
    (r"a full house has no jokers; a joker pair is not its pair",
     gettext_lazy("a full house has no jokers; a joker pair is not its pair")),
    (r"a pair needs two cards of one rank", gettext_lazy("a pair needs two cards of one rank")),
    (r"jokers go only in singles, joker pairs and the joker bomb",
     gettext_lazy("jokers go only in singles, joker pairs and the joker bomb")),
    (r"a straight has exactly 5 cards", gettext_lazy("a straight has exactly 5 cards")),
    (r"a triple needs three cards of one rank", gettext_lazy("a triple needs three cards of one rank")),
    (r"a triple with a single is not a combination", gettext_lazy("a triple with a single is not a combination")),
    (r"two pairs are not a combination; a pair run has 3 pairs \(R4.6\)",
     gettext_lazy("two pairs are not a combination; a pair run has 3 pairs (R4.6)")),
    (r"four cards play only as a bomb of one rank", gettext_lazy("four cards play only as a bomb of one rank")),
    (r"four of a kind with a single is not a combination",
     gettext_lazy("four of a kind with a single is not a combination")),
    (r"a triple with two singles is not a combination", gettext_lazy("a triple with two singles is not a combination")),
    (_RUN + r" wraps around; the ace ends a run, it never joins K to 2",
     gettext_lazy("%(run)s wraps around; the ace ends a run, it never joins K to 2")),
    (r"a plain flush is not a combination; a straight flush needs 5 ranks in sequence \(R4.9\)",
     gettext_lazy("a plain flush is not a combination; a straight flush needs 5 ranks in sequence (R4.9)")),
    (r"a straight needs 5 consecutive ranks", gettext_lazy("a straight needs 5 consecutive ranks")),
    (r"a full house is a triple plus a pair of another rank",
     gettext_lazy("a full house is a triple plus a pair of another rank")),
    (r"5 cards of (?P<kinds>\w+) ranks are not a combination",
     gettext_lazy("5 cards of %(kinds)s ranks are not a combination")),
    (r"(?P<n>\d+) cards of (?P<kinds>\w+) ranks are not a combination; (?P=n) cards play only as a bomb of one rank \(R4.8\)",
     gettext_lazy("%(n)s cards of %(kinds)s ranks are not a combination; %(n)s cards play only as a bomb of one rank (R4.8)")),
    (r"a straight has exactly 5 cards; 6-card straights are not allowed \(R4.11\)",
     gettext_lazy("a straight has exactly 5 cards; 6-card straights are not allowed (R4.11)")),
    (r"a pair run is 3 pairs of consecutive ranks", gettext_lazy("a pair run is 3 pairs of consecutive ranks")),
    (r"a triple run is 2 triples of consecutive ranks", gettext_lazy("a triple run is 2 triples of consecutive ranks")),
    (r"a straight has exactly 5 cards; longer straights are not allowed \(R4.11\)",
     gettext_lazy("a straight has exactly 5 cards; longer straights are not allowed (R4.11)")),
    (r"a pair run has exactly 3 pairs", gettext_lazy("a pair run has exactly 3 pairs")),
    (r"a triple run has exactly 2 triples", gettext_lazy("a triple run has exactly 2 triples")),
    # reading.why_not_beats
    (r"nothing beats the joker bomb", gettext_lazy("nothing beats the joker bomb")),
    (r"only a higher bomb beats a (?P<top>.+)", gettext_lazy("only a higher bomb beats a %(top)s")),
    (r"a (?P<play>.+) is lower on the bomb ladder than a (?P<top>.+)",
     gettext_lazy("a %(play)s is lower on the bomb ladder than a %(top)s")),
    (r"a (?P<play>.+) does not beat a (?P<top>.+) \(equal never beats\)",
     gettext_lazy("a %(play)s does not beat a %(top)s (equal never beats)")),
    (r"a (?P<play>.+) cannot beat a (?P<top>.+) \(different shape\)",
     gettext_lazy("a %(play)s cannot beat a %(top)s (different shape)")),
    (r"a (?P<play>.+) is not higher than a (?P<top>.+)", gettext_lazy("a %(play)s is not higher than a %(top)s")),
    # deal.apply
    (r"(?P<card>[2-9TJQKA][SHCD]|SJ|BJ) is not in " + _SEAT + "'s hand",
     gettext_lazy("%(card)s is not in seat %(seat)s's hand")),
    (r"the same physical card is listed twice", gettext_lazy("the same physical card is listed twice")),
    (r"these cards cannot be played as (?P<name>.+?); they read as (?P<names>.+)",
     gettext_lazy("these cards cannot be played as %(name)s; they read as %(names)s")),
    (r"these cards can be played as (?P<names>.+): choose one",
     gettext_lazy("these cards can be played as %(names)s: choose one")),
    (r"the deal is over", gettext_lazy("the deal is over")),
    (_SEAT + r" is not on autopilot", gettext_lazy("seat %(seat)s is not on autopilot")),
    (r"on a timeout the engine makes the automatic choice", gettext_lazy("on a timeout the engine makes the automatic choice")),
    (r"the lead starts only after every tribute and return is done",
     gettext_lazy("the lead starts only after every tribute and return is done")),
    (_SEAT + r" has finished and is skipped", gettext_lazy("seat %(seat)s has finished and is skipped")),
    (r"it is " + _SEAT + r"'s turn", gettext_lazy("it is seat %(seat)s's turn")),
    (r"a leader cannot pass", gettext_lazy("a leader cannot pass")),
    (r"a pass plays no cards", gettext_lazy("a pass plays no cards")),
    (r"a tribute is exactly one card", gettext_lazy("a tribute is exactly one card")),
    (r"a return is exactly one card", gettext_lazy("a return is exactly one card")),
    (_SEAT + r" owes no tribute now", gettext_lazy("seat %(seat)s owes no tribute now")),
    (_SEAT + r" owes no return now", gettext_lazy("seat %(seat)s owes no return now")),
    (r"the tribute is the highest card other than a wild: a (?P<rank>\S+)",
     gettext_lazy("the tribute is the highest card other than a wild: a %(rank)s")),
    (r"the card just received cannot go back", gettext_lazy("the card just received cannot go back")),
    (r"a return is a natural card ranked 2-10, not a level card and not a joker",
     gettext_lazy("a return is a natural card ranked 2-10, not a level card and not a joker")),
    (r"with no card ranked 2-10 to return, the weakest card goes back: a (?P<rank>\S+)",
     gettext_lazy("with no card ranked 2-10 to return, the weakest card goes back: a %(rank)s")),
    (_SEAT + r" has nothing to do now", gettext_lazy("seat %(seat)s has nothing to do now")),
]]


def _part(name: str, value: str) -> str:
    if name in ("name", "top", "play"):
        return name_text(value)
    if name == "names":
        return names_text(value, " or " if " or " in value else ", ")
    if name == "kinds":
        return str(_COUNT_WORDS.get(value, value))
    if name == "rank":
        return rank_text(_rank_of(value)) if value in _SHOWN_RANKS or "joker" in value else value
    return value


def sentence_text(sentence: str) -> str:
    """One engine sentence (without its rule id) in the reader's language; unknown
    sentences are returned as they are."""
    for pattern, template in _REASONS:
        m = pattern.match(sentence)
        if m:
            return str(template) % {k: _part(k, v) for k, v in m.groupdict().items()}
    return sentence


def reason_text(reason: str) -> str:
    """An engine reason ``"R4.5: ..."`` (or a bare sentence) in the reader's language,
    keeping its rule id."""
    rule, sep, sentence = reason.partition(": ")
    if sep and RULE_ID.fullmatch(rule):
        return _("%(rule)s: %(reason)s") % {"rule": rule, "reason": sentence_text(sentence)}
    return sentence_text(reason)


def is_known_reason(reason: str) -> bool:
    """Whether ``reason_text`` knows this engine sentence (for tests)."""
    _rule, sep, sentence = reason.partition(": ")
    sentence = sentence if sep else reason
    return any(p.match(sentence) for p, _t in _REASONS)


# --------------------------------------------------------------------------------------
# The bots' advice: suggestions and the coach (games/bots/advice.py)


_CARD_RANKS = {"jack": gettext_lazy("jack"), "queen": gettext_lazy("queen"), "king": gettext_lazy("king"),
               "ace": gettext_lazy("ace")}
_CARD_SUITS = {"spades": gettext_lazy("spades"), "hearts": gettext_lazy("hearts"), "clubs": gettext_lazy("clubs"),
               "diamonds": gettext_lazy("diamonds")}
_CARD_NAME = r"(?:big joker|small joker|(?:10|[2-9]|jack|queen|king|ace) of (?:spades|hearts|clubs|diamonds)(?:, wild)?)"
_CARD_NAME_PARTS = re.compile(r"(?P<rank>10|[2-9]|jack|queen|king|ace) of (?P<suit>spades|hearts|clubs|diamonds)(?P<wild>, wild)?\Z")


def card_name_text(name: str) -> str:
    """An English card name (``engine.cards.card_name``: "10 of hearts, wild") translated."""
    if name == "big joker":
        return _("big joker")
    if name == "small joker":
        return _("small joker")
    m = _CARD_NAME_PARTS.match(name)
    if not m:
        return name
    text = _("%(rank)s of %(suit)s") % {"rank": _CARD_RANKS.get(m["rank"], m["rank"]), "suit": _CARD_SUITS[m["suit"]]}
    if m["wild"]:
        text = _("%(card)s, wild") % {"card": text}
    return text


_SHAPE_WORDS = {"single": gettext_lazy("single"), "pair": gettext_lazy("pair"), "three": gettext_lazy("triple"),
                "full": gettext_lazy("full house"), "bomb": gettext_lazy("bomb"), "joker": gettext_lazy("joker bomb"),
                "straight": gettext_lazy("straight"), "triple": gettext_lazy("triple run")}


def _advice(regex: str, build):
    return re.compile(regex + r"(?=; |\Z)"), build


_ADVICE = [
    _advice(r"your partner has gone out: pass, and if nobody beats that play the lead comes to you by the wind \(R6\.4\)",
            lambda m: _("your partner has gone out: pass, and if nobody beats that play the lead comes to you by the wind (R6.4)")),
    _advice(r"lets your partner keep the lead \(R6\.2: passing is always allowed\)",
            lambda m: _("lets your partner keep the lead (R6.2: passing is always allowed)")),
    _advice(r"keeps your cards: beating a (?P<top>.+?) would cost a bigger bomb \(R5\.2\)",
            lambda m: _("keeps your cards: beating a %(top)s would cost a bigger bomb (R5.2)") % {"top": name_text(m["top"])}),
    _advice(r"saves your strong cards: the opponent is far from finishing \(R6\.2\)",
            lambda m: _("saves your strong cards: the opponent is far from finishing (R6.2)")),
    _advice(r"plays your last cards as a (?P<name>.+?) and goes out \(R6\.5\)",
            lambda m: _("plays your last cards as a %(name)s and goes out (R6.5)") % {"name": name_text(m["name"])}),
    _advice(r"stops seat (?P<seat>[1-4]), who holds (?P<n>\d+) cards, and takes the lead with the lowest bomb that beats \(R5\.2\)",
            lambda m: _("stops seat %(seat)s, who holds %(n)s cards, and takes the lead with the lowest bomb that beats (R5.2)")
            % {"seat": m["seat"], "n": m["n"]}),
    _advice(r"takes the lead with the lowest bomb that beats \(R5\.2\), and your hand can finish from there",
            lambda m: _("takes the lead with the lowest bomb that beats (R5.2), and your hand can finish from there")),
    _advice(r"stops seat (?P<seat>[1-4]), who holds (?P<n>\d+) cards, and takes the lead with a bomb \(R5\.2\)",
            lambda m: _("stops seat %(seat)s, who holds %(n)s cards, and takes the lead with a bomb (R5.2)")
            % {"seat": m["seat"], "n": m["n"]}),
    _advice(r"takes the lead with a bomb \(R5\.2\), and your hand can finish from there",
            lambda m: _("takes the lead with a bomb (R5.2), and your hand can finish from there")),
    _advice(r"takes the lead with the lowest bomb that beats \(R5\.2\)",
            lambda m: _("takes the lead with the lowest bomb that beats (R5.2)")),
    _advice(r"takes the lead with a bomb \(R5\.2\)",
            lambda m: _("takes the lead with a bomb (R5.2)")),
    _advice(r"keeps your hand whole \(R6\.2: passing is always allowed\)",
            lambda m: _("keeps your hand whole (R6.2: passing is always allowed)")),
    _advice(r"uses the wild to make a (?P<name>.+?) \(R3\.2\)",
            lambda m: _("uses the wild to make a %(name)s (R3.2)") % {"name": name_text(m["name"])}),
    _advice(r"the wild makes it a (?P<name>.+?) \(R3\.2\)",
            lambda m: _("the wild makes it a %(name)s (R3.2)") % {"name": name_text(m["name"])}),
    _advice(r"leads low for your partner, who holds (?P<n>\d+) cards?",
            lambda m: ngettext("leads low for your partner, who holds %(n)s card",
                               "leads low for your partner, who holds %(n)s cards", int(m["n"])) % {"n": m["n"]}),
    _advice(r"leaves you (?P<left>\d+) plays? instead of (?P<worst>\d+)",
            lambda m: ngettext("leaves you %(left)s play instead of %(worst)s", "leaves you %(left)s plays instead of %(worst)s",
                               int(m["left"])) % {"left": m["left"], "worst": m["worst"]}),
    _advice(r"leads your weakest (?P<shape>\w+) and keeps the strong plays for later; (?P<left>\d+) plays left",
            lambda m: _("leads your weakest %(shape)s and keeps the strong plays for later; %(left)s plays left")
            % {"shape": _SHAPE_WORDS.get(m["shape"], m["shape"]), "left": m["left"]}),
    _advice(r"beats the (?P<top>.+?) with the weakest play that does \(R5\.1\) and breaks no combination; (?P<left>\d+) plays left",
            lambda m: _("beats the %(top)s with the weakest play that does (R5.1) and breaks no combination; %(left)s plays left")
            % {"top": name_text(m["top"]), "left": m["left"]}),
    _advice(r"beats the (?P<top>.+?) with the weakest play that does \(R5\.1\); (?P<left>\d+) plays left",
            lambda m: _("beats the %(top)s with the weakest play that does (R5.1); %(left)s plays left")
            % {"top": name_text(m["top"]), "left": m["left"]}),
    _advice(r"beats the (?P<top>.+?) \(R5\.1\); (?P<left>\d+) plays left",
            lambda m: _("beats the %(top)s (R5.1); %(left)s plays left")
            % {"top": name_text(m["top"]), "left": m["left"]}),
    _advice(r"leads a (?P<name>.+?); (?P<left>\d+) plays left",
            lambda m: _("leads a %(name)s; %(left)s plays left") % {"name": name_text(m["name"]), "left": m["left"]}),
    _advice(r"keeps your (?P<name>.+?) \(with the wild\)",
            lambda m: _("keeps your %(name)s (with the wild)") % {"name": name_text(m["name"])}),
    _advice(r"keeps your (?P<name>.+?) \(with both wilds\)",
            lambda m: _("keeps your %(name)s (with both wilds)") % {"name": name_text(m["name"])}),
    _advice(r"keeps your (?P<name>.+?)",
            lambda m: _("keeps your %(name)s") % {"name": name_text(m["name"])}),
    _advice(rf"R8\.1: the tribute is your highest card other than a wild; this (?P<card>{_CARD_NAME}) costs your hand least",
            lambda m: _("R8.1: the tribute is your highest card other than a wild; this %(card)s costs your hand least")
            % {"card": card_name_text(m["card"])}),
    _advice(rf"R8\.4: returns the (?P<card>{_CARD_NAME}): it breaks none of your combinations and helps your partner least",
            lambda m: _("R8.4: returns the %(card)s: it breaks none of your combinations and helps your partner least")
            % {"card": card_name_text(m["card"])}),
    _advice(rf"R8\.4: returns the (?P<card>{_CARD_NAME}): it breaks none of your combinations and helps the opponent least",
            lambda m: _("R8.4: returns the %(card)s: it breaks none of your combinations and helps the opponent least")
            % {"card": card_name_text(m["card"])}),
    _advice(r"you bombed your own partner's play: your partner already held the trick",
            lambda m: _("you bombed your own partner's play: your partner already held the trick")),
    _advice(r"your partner already held the trick: topping it spends your cards for nothing",
            lambda m: _("your partner already held the trick: topping it spends your cards for nothing")),
]


def advice_text(reason: str) -> str:
    """A suggestion's or the coach's reason (one or two parts joined by "; ") in the
    reader's language; a part not recognised stays as it is."""
    parts, rest = [], reason or ""
    while rest:
        for pattern, build in _ADVICE:
            m = pattern.match(rest)
            if m and (m.end() == len(rest) or rest[m.end():].startswith("; ")):
                parts.append(build(m))
                rest = rest[m.end() + 2:]
                break
        else:
            parts.append(rest)
            break
    return _("; ").join(parts)


def suggestion_text(action: str, reason: str) -> str:
    """A suggestion (提示) as the table says it: the play it names, then why, in the
    reader's language ("Play pair of 8s: keeps your bomb of 7s"; "Pass: lets your partner
    keep the lead"). ``action`` is the bots' name of the action (``action_text``)."""
    why = advice_text(reason)
    if action == "pass":
        return _("Pass: %(reason)s") % {"reason": why}
    return _("Play %(play)s: %(reason)s") % {"play": action_text(action), "reason": why}


def is_known_advice(reason: str) -> bool:
    """Whether every part of an advice reason is recognised (for tests)."""
    rest = reason or ""
    while rest:
        for pattern, _build in _ADVICE:
            m = pattern.match(rest)
            if m and (m.end() == len(rest) or rest[m.end():].startswith("; ")):
                rest = rest[m.end() + 2:]
                break
        else:
            return False
    return True


_FACE = r"(?:[2-9TJQKA][SHCD]|SJ|BJ)"
_COACH = re.compile(r"Better: (?P<action>.+?)\. (?P<reason>.+?)\.(?: It was worth about (?P<loss>[0-9.]+) levels more in "
                    r"the deals sampled\.)?\Z", re.S)


def action_text(action: str) -> str:
    """An action as the bots name it ("pass", "tribute KS", "pair of 8s") in the reader's
    language."""
    if action == "pass":
        return _("pass")
    m = re.fullmatch(rf"(?P<kind>tribute|return) (?P<face>{_FACE})", action)
    if m:
        if m["kind"] == "tribute":
            return _("tribute %(card)s") % {"card": m["face"]}
        return _("return %(card)s") % {"card": m["face"]}
    return name_text(action)


def coach_text(message: str) -> str:
    """The coach's highlight ("Better: pass. Lets your partner keep the lead ....") in the
    reader's language."""
    m = _COACH.match(message or "")
    if not m:
        return message or ""
    reason = m["reason"]
    reason = advice_text(reason[0].lower() + reason[1:])
    text = _("Better: %(action)s. %(reason)s.") % {"action": action_text(m["action"]),
                                                   "reason": reason[:1].upper() + reason[1:]}
    if m["loss"]:
        text = _("%(text)s It was worth about %(loss)s levels more in the deals sampled.") % {
            "text": text, "loss": formats.number_format(float(m["loss"]), 1)}
    return text


# --------------------------------------------------------------------------------------
# Links to the rules


def rule_url(rule: str) -> str:
    """The rules page's anchor of a rule id (a section such as R4 goes to its heading)."""
    return f"{reverse('rules:page')}#{rule}"


def rule_links(text) -> SafeString:
    """``text`` escaped (unless it is safe HTML already, such as a ``blocktranslate``'s
    result), with each rule id in it a link to that rule on the rules page."""
    if text is None:
        return mark_safe("")
    safe = isinstance(text, SafeData)
    out, at = [], 0
    source = str(text)
    for m in RULE_ID.finditer(source):
        out.append(source[at:m.start()] if safe else escape(source[at:m.start()]))
        out.append(format_html('<a class="rule-link" href="{}">{}</a>', rule_url(m.group()), m.group()))
        at = m.end()
    out.append(source[at:] if safe else escape(source[at:]))
    return mark_safe("".join(out))


def link_help_texts(form) -> None:
    """Every rule id in ``form``'s help texts a link to its rule (Django's form templates
    show a help text as safe HTML)."""
    for field in form.fields.values():
        if field.help_text:
            field.help_text = rule_links(field.help_text)


__all__ = [
    "RULE_ID", "is_known_reason", "link_help_texts", "name_text", "rank_text", "reading_label", "reason_text",
    "rule_links", "rule_url", "sentence_text", "settlement_text",
]
