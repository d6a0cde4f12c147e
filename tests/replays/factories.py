"""Real deals for the replay tests, played through the site's own doors.

Tables, seats and matches come from ``games.tables.services`` (starting a match deals its first
deal); every action goes through the live table's ``games.live.door.submit_action`` (the one
door humans, bots and timeouts use) and the next deal is dealt by
``games.live.door.start_next_deal``. Actions are chosen among the engine's ``legal_actions``,
or are the engine's own ``timeout_action``. ``PlayedDeal.snapshots`` keeps the snapshot
the table stored after every step, so tests can compare each intermediate state with the
replay (R11.1).

One deal is not the table's choice: a test that needs a particular deal (a resisted
tribute, R8.5) has it dealt from a chosen seed with the fields ``games.live.door`` writes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from games.engine import match as engine_match
from games.engine.deal import (
    AUTOPILOT,
    BOT,
    HUMAN,
    PASS,
    DealState,
    deal_hands,
    legal_actions,
    plan_tribute,
    timeout_action,
)
from games.engine.deal import (
    Action as EngineAction,
)
from games.engine.replay import match_from_json
from games.live import door
from games.live import selectors as live_selectors
from games.models import Deal, Match
from games.tables import services

# A follower passes this often even when it could beat (R6.2 allows it), so deals have
# both long tricks and quick ones.
PASS_RATE = 0.3


@dataclass
class PlayedDeal:
    deal: Deal
    snapshots: list[dict] = field(default_factory=list)  # stored state after step 0, 1, ...


def start_match_with_bots(*, host, partner) -> Match:
    """A Junior match table: ``host`` in seat 1, ``partner`` in seat 3, bots in seats 2
    and 4 (R10.2: two humans may fill with bots); the match started (and its first deal
    dealt) by the host."""
    table = services.create_table(host=host, kind="match", tier="junior")
    services.take_seat(table=table, user=partner, position=2)
    services.fill_with_bots(table=table, user=host)
    return services.start_match(table=table, user=host)


def resisting_seed(match: Match) -> int:
    """A deal seed whose next deal of ``match`` has its tribute resisted (R8.5)."""
    engine = match_from_json(match.state)
    if engine.prev_places is None:
        raise ValueError("a match's first deal has no tribute")
    for seed in range(1, 10_000):
        tribute, _ = plan_tribute(deal_hands(seed), engine.active_level, engine.prev_places)
        if tribute.resisted:
            return seed
    raise AssertionError("no resisting seed found")


def deal_next(match: Match, *, seed: int | None = None) -> PlayedDeal:
    """The match's next deal: the one the table has dealt and nobody has acted in yet, else
    the table deals it after the last finished deal (``games.live.door.start_next_deal``).

    With ``seed``, the deal is dealt from that seed instead, its row written with the
    fields ``games.live.door`` writes; the door then plays it like any other.
    """
    match.refresh_from_db()
    if seed is None:
        waiting = match.deals.filter(finished_at__isnull=True, seq=0).order_by("-number").first()
        if waiting is not None:
            return PlayedDeal(waiting, [waiting.state])
        last = match.deals.order_by("-number").first()
        deal = door.start_next_deal(table_id=match.table_id, deal_id=last.pk)
        if deal is None:
            raise ValueError("the table deals no further deal (the match is over or the table closed)")
        return PlayedDeal(deal, [Deal.objects.get(pk=deal.pk).state])
    engine = match_from_json(match.state)
    state = engine_match.next_deal(engine, seed)
    deal = door.deal_row(match, state, number=engine.deals_played + 1)
    return PlayedDeal(deal, [deal.state])


def _choose(state: DealState, seat: int, rng: random.Random) -> EngineAction:
    options = legal_actions(state, seat)
    passes = [a for a in options if a.kind == PASS]
    plays = [a for a in options if a.kind != PASS]
    if passes and (not plays or rng.random() < PASS_RATE):
        return passes[0]
    # Of two plays drawn at random, the one with more cards: every kind of play still
    # comes up, and deals end in fewer steps.
    first, second = plays[rng.randrange(len(plays))], plays[rng.randrange(len(plays))]
    return first if len(first.cards) >= len(second.cards) else second


def play(played: PlayedDeal, *, rng: random.Random, max_actions: int | None = None,
         sleepy_seat: int | None = None) -> PlayedDeal:
    """Play the deal on through ``games.live.door.submit_action`` (to its end, or
    ``max_actions`` more actions).

    Bots act as ``bot``, human seats as ``human`` with their user. ``sleepy_seat`` (a
    human seat) lets its think time run out twice, which puts it on autopilot (R9.2); the
    autopilot then acts for it twice before the player takes over again.
    """
    deal = played.deal
    match = deal.match
    users = {p.position: p.user for p in match.participants.all()}
    state = live_selectors.deal_state(Deal.objects.get(pk=deal.pk))
    sleepy_turns = 0
    done = 0
    while not state.is_over and (max_actions is None or done < max_actions):
        seat = state.to_act[0]
        user = users.get(seat)
        if user is None:
            action = _choose(state, seat, rng).as_actor(BOT)
        elif seat == sleepy_seat and sleepy_turns < 4:
            sleepy_turns += 1
            if state.autopilot[seat]:
                action = _choose(state, seat, rng).as_actor(AUTOPILOT)
            else:
                action = timeout_action(state, seat)
        else:
            action = _choose(state, seat, rng).as_actor(HUMAN)
        outcome = door.submit_action(
            table_id=match.table_id, seat=seat, kind=action.kind, cards=action.cards, reading=action.reading,
            expected_deal=deal.pk, expected_seq=state.step, actor=action.actor,
            user=user if action.actor == HUMAN else None,
        )
        state = outcome.state
        played.snapshots.append(Deal.objects.get(pk=deal.pk).state)
        done += 1
    played.deal = Deal.objects.select_related("match__table").get(pk=deal.pk)
    return played


def play_deals(match: Match, count: int, *, seed: int = 0, sleepy_seat: int | None = None) -> list[PlayedDeal]:
    """Finish ``count`` deals of the match, each dealt by the table (fewer if the match
    ends first)."""
    out = []
    for number in range(count):
        match.refresh_from_db()
        if match.status != Match.Status.PLAYING:
            break
        out.append(play(deal_next(match), rng=random.Random(seed * 1000 + number), sleepy_seat=sleepy_seat))
    return out


__all__ = ["PlayedDeal", "start_match_with_bots", "deal_next", "play", "play_deals", "resisting_seed"]
