"""Hidden information is sacred: whole deals are played through the table's WebSocket by
four seated players while a spectator watches, and every message each page receives is
scanned for cards its viewer may not see at that step.

At a friend table whose host allows the card counter (R10.8), each seated page's counter
(``#tbl-counter``) is checked too: at every step it must show exactly what that seat
knows (each rank's cards less those in its own hand and those played so far), counted
here from the replayed deal, never from another hand; the spectator and match tables
get no counter at all."""

import random
import re

import pytest
from channels.db import database_sync_to_async

from games.engine.cards import BIG_JOKER, HEARTS, RANK_OF, SMALL_JOKER, SUIT_OF, rank_char
from games.engine.views import cards_in_view, view_for
from games.live import door
from games.live.render import play_as_options
from games.models import Deal
from games.replays.log import replay_states

from .helpers import choose, current
from .test_table_consumer import connect

pytestmark = pytest.mark.django_db(transaction=True)

STEP = re.compile(r'id="tbl-status"[^>]*?data-seq="(\d+)" data-deal="(\d+)"')
REGION = re.compile(r"<!--tbl:([a-z0-9-]+)-->")
CARD = re.compile(r'data-card="(\d+)"')
PUBLIC_REGIONS = re.compile(r"seats|seats-end|(?:seat|plate|last)-[1-4]|seat-[1-4]-end|trick|log")
COUNTER_CELL = re.compile(r'data-rank="([^"]+)" data-count="(\d+)"')


def fragments(html):
    """(region, seq, deal id, its HTML) for every region of a message, whole or only the
    regions that changed: each region begins with its mark, and every message names its
    step in #tbl-status. Nothing before the first mark may hold a card."""
    parts = REGION.split(html)
    assert not CARD.search(parts[0]), "a card outside any region"
    if len(parts) == 1:
        return
    step = STEP.search(html)
    assert step, "a message with regions names its step"
    seq, deal_id = int(step.group(1)), int(step.group(2))
    for name, part in zip(parts[1::2], parts[2::2]):
        yield name, seq, deal_id, part


def known_counts(state, seat) -> dict[str, int]:
    """What the card counter may show ``seat``: per rank, the cards neither in its own hand
    nor played so far (wild hearts apart), counted from the state itself."""
    gone = set(state.hands[seat]) | {c for m in state.history for c in m.cards}
    out: dict[str, int] = {}
    for card in range(108):
        if card in gone:
            continue
        rank = RANK_OF[card]
        if rank == BIG_JOKER:
            key = "BJ"
        elif rank == SMALL_JOKER:
            key = "SJ"
        elif rank == state.level and SUIT_OF[card] == HEARTS:
            key = "wild"
        else:
            key = "10" if rank_char(rank) == "T" else rank_char(rank)
        out[key] = out.get(key, 0) + 1
    return out


def leaks(messages, viewer, *, counter=False):
    """Cards shown to ``viewer`` that its view at that step does not hold; and a card
    counter that shows what the viewer may not know, or shows where it must not
    (``counter``: the table offers it to seated players, R10.8)."""
    states = {}

    def state_at(deal_id, seq):
        if deal_id not in states:
            states[deal_id] = replay_states(Deal.objects.get(pk=deal_id))
        return states[deal_id][seq]

    def allowed_cards(deal_id, seq, who):
        return cards_in_view(view_for(state_at(deal_id, seq), who))

    found = []
    for html in messages:
        for name, seq, deal_id, part in fragments(html):
            if name == "counter":
                if not counter or viewer is None:
                    found.append(("counter shown", deal_id, seq, []))
                    continue
                shown = {rank: int(n) for rank, n in COUNTER_CELL.findall(part)}
                expected = known_counts(state_at(deal_id, seq), viewer)
                if {r: n for r, n in shown.items() if n} != expected:
                    found.append(("counter", deal_id, seq, sorted(set(shown.items()) ^ set(expected.items()))))
            who = None if PUBLIC_REGIONS.fullmatch(name) else viewer
            shown = {int(c) for c in CARD.findall(part)}
            extra = shown - allowed_cards(deal_id, seq, who)
            if extra:
                found.append((name, deal_id, seq, sorted(extra)))
    return found


async def receive_until(page, marker):
    """Messages up to the first holding ``marker`` (the step every page must reach)."""
    out = []
    while True:
        out.append(await page.receive_from(timeout=10))
        if marker in out[-1]:
            return out


@pytest.fixture(params=["match", "friend with the card counter"])
def any_playing_table(request, playing_table, make_user):
    """The match table of ``playing_table``, or a friend table of four humans whose host
    allows the card counter (R10.8)."""
    if request.param == "match":
        return playing_table
    from games.tables import services

    users = [make_user() for _ in range(4)]
    table = services.create_table(host=users[0], kind="friend", card_counter=True)
    for position, user in enumerate(users[1:], start=1):
        services.take_seat(table=table, user=user, position=position, invite_code=table.invite_code)
    services.start_match(table=table, user=users[0])
    table.refresh_from_db()
    return table, users


@pytest.mark.asyncio
async def test_no_message_carries_a_card_its_viewer_may_not_see(any_playing_table):
    table, users = any_playing_table
    counter = table.has_card_counter
    rng = random.Random(7)
    pages, received = {}, {}
    for seat in range(4):
        pages[seat], first = await connect(table, users[seat])
        received[seat] = [first]
    if table.kind == "match":  # a friend table is not watched by strangers (R10.3)
        pages[None], first = await connect(table)
        received[None] = [first]
    deals_played = 0
    for _ in range(3000):
        deal, state = await database_sync_to_async(current)(table)
        if state.is_over:
            deals_played += 1
            if deals_played == 2:
                break
            nxt = await database_sync_to_async(door.start_next_deal)(table_id=table.pk, deal_id=deal.pk)
            marker = f'data-seq="0" data-deal="{nxt.pk}"'
        else:
            seat = state.to_act[0]
            action = choose(state, seat, rng)
            message = {"action": action.kind, "card": list(action.cards), "deal": deal.pk, "seq": deal.seq}
            if action.kind == "play":
                options = play_as_options(state, action.cards)
                if len(options) > 1:
                    # R3.5: the page first offers "play as" buttons, then the choice is sent.
                    await pages[seat].send_json_to(message)
                    received[seat].extend(await receive_until(pages[seat], "play-as-0"))
                    message["action"] = f"play-as-{options.index(action.reading)}"
            await pages[seat].send_json_to(message)
            marker = f'data-seq="{deal.seq + 1}" data-deal="{deal.pk}"'
        for viewer, page in pages.items():
            received[viewer].extend(await receive_until(page, marker))
    assert deals_played == 2, "two whole deals (the second with its tribute) were played"
    for viewer, messages in received.items():
        assert len(messages) > 50
        found = await database_sync_to_async(leaks)(messages, viewer, counter=counter)
        assert not found, f"viewer {viewer} was sent cards it may not see: {found[:3]}"
        if counter and viewer is not None:
            assert any("<!--tbl:counter-->" in m for m in messages), f"seat {viewer} never saw its card counter"
    for page in pages.values():
        await page.disconnect()


def test_the_scan_finds_a_planted_leak(playing_table):
    """The scanner itself can fail: a hand fragment holding another seat's card is caught."""
    table, users = playing_table
    deal, state = current(table)
    foreign = state.hands[2][0]
    status = f'<!--tbl:status--><div id="tbl-status" class="play-status" data-seq="0" data-deal="{deal.pk}"></div>'
    planted = status + f'<!--tbl:hand--><div id="tbl-hand" class="hand-area"><span data-card="{foreign}"></span></div>'
    assert leaks([planted], 1) == [("hand", deal.pk, 0, [foreign])]
    assert leaks([planted], 2) == []
    # In a public region (a seat's, sent alone in a partial update), it is a leak to all.
    seat = status + f'<!--tbl:last-3--><div id="tbl-last-3" class="seat-last"><span data-card="{foreign}"></span></div>'
    assert leaks([seat], 2) == [("last-3", deal.pk, 0, [foreign])]
    with pytest.raises(AssertionError, match="outside any region"):
        leaks([f'<div id="tbl-hand"><span data-card="{foreign}"></span></div>'], 2)


def test_the_scan_finds_a_counter_that_knows_too_much(playing_table):
    """A counter that also takes away another seat's cards, or one shown where the table
    offers none, is caught."""
    table, users = playing_table
    deal, state = current(table)
    status = f'<!--tbl:status--><div id="tbl-status" class="play-status" data-seq="0" data-deal="{deal.pk}"></div>'

    def counter(counts):
        cells = "".join(f'<li data-rank="{r}" data-count="{n}"></li>' for r, n in counts.items())
        return status + f'<!--tbl:counter--><section id="tbl-counter"><ol>{cells}</ol></section>'

    honest = known_counts(state, 1)
    assert leaks([counter(honest)], 1, counter=True) == []
    peeking = dict(honest)
    for card in state.hands[2]:  # seat 3's cards counted as gone too
        key = "BJ" if RANK_OF[card] == BIG_JOKER else "SJ" if RANK_OF[card] == SMALL_JOKER else None
        if key:
            peeking[key] -= 1
            break
    else:
        rank = rank_char(RANK_OF[state.hands[2][0]])
        key = "10" if rank == "T" else rank
        peeking[key] -= 1
    assert leaks([counter(peeking)], 1, counter=True)[0][0] == "counter"
    assert leaks([counter(honest)], 1, counter=False) == [("counter shown", deal.pk, 0, [])]
    assert leaks([counter(honest)], None, counter=True) == [("counter shown", deal.pk, 0, [])]
