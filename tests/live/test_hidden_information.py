"""Hidden information is sacred: whole deals are played through the table's WebSocket by
four seated players while a spectator watches, and every message each page receives is
scanned for cards its viewer may not see at that step."""

import random
import re

import pytest
from channels.db import database_sync_to_async

from games.engine.views import cards_in_view, view_for
from games.live import door
from games.live.render import play_as_options
from games.models import Deal
from games.replays.log import replay_states

from .helpers import choose, current
from .test_table_consumer import connect

pytestmark = pytest.mark.django_db(transaction=True)

FRAGMENT = re.compile(r'<(?:section|div) id="(tbl-[a-z]+)"[^>]*?data-seq="(\d+)" data-deal="(\d+)"')
CARD = re.compile(r'data-card="(\d+)"')
PUBLIC = {"tbl-seats", "tbl-trick", "tbl-log"}


def fragments(html):
    """(fragment id, seq, deal id, its HTML) for every top-level fragment of a message."""
    starts = list(FRAGMENT.finditer(html))
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(html)
        yield match.group(1), int(match.group(2)), int(match.group(3)), html[match.start():end]


def leaks(messages, viewer):
    """Cards shown to ``viewer`` that its view at that step does not hold."""
    states = {}

    def allowed_cards(deal_id, seq, who):
        if deal_id not in states:
            states[deal_id] = replay_states(Deal.objects.get(pk=deal_id))
        return cards_in_view(view_for(states[deal_id][seq], who))

    found = []
    for html in messages:
        for name, seq, deal_id, part in fragments(html):
            who = None if name in PUBLIC else viewer
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


@pytest.mark.asyncio
async def test_no_message_carries_a_card_its_viewer_may_not_see(playing_table):
    table, users = playing_table
    rng = random.Random(7)
    pages, received = {}, {}
    for seat in range(4):
        pages[seat], first = await connect(table, users[seat])
        received[seat] = [first]
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
        found = await database_sync_to_async(leaks)(messages, viewer)
        assert not found, f"viewer {viewer} was sent cards it may not see: {found[:3]}"
    for page in pages.values():
        await page.disconnect()


def test_the_scan_finds_a_planted_leak(playing_table):
    """The scanner itself can fail: a hand fragment holding another seat's card is caught."""
    table, users = playing_table
    deal, state = current(table)
    foreign = state.hands[2][0]
    planted = f'<div id="tbl-hand" class="hand-area" data-seq="0" data-deal="{deal.pk}"><span data-card="{foreign}"></span></div>'
    assert leaks([planted], 1) == [("tbl-hand", deal.pk, 0, [foreign])]
    assert leaks([planted], 2) == []
