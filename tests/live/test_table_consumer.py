"""The table's WebSocket: each action kind, each refusal (with its rule, changing nothing),
and what every viewer receives."""

import json
import re

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from games.engine.deal import new_deal
from games.engine.replay import state_to_json
from games.live import selectors as live_selectors
from games.live.render import forget_scenes
from games.models import Action
from guandan_site.asgi import application

from .helpers import current

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

ORIGIN = (b"origin", b"http://127.0.0.1:8000")
HOST = (b"host", b"127.0.0.1:8000")
CARD = re.compile(r'data-card="(\d+)"')


@database_sync_to_async
def cookie_for(user):
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode()


async def connect(table, user=None, *, extra=()):
    headers = [ORIGIN, HOST, *extra]
    if user is not None:
        headers.append((b"cookie", await cookie_for(user)))
    communicator = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/", headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    first = await communicator.receive_from(timeout=5)
    return communicator, first


async def drain(communicator, timeout=0.5):
    """Every message that arrives until the page has been quiet for ``timeout``
    (``receive_nothing`` does not cancel the consumer as a timed-out receive would)."""
    out = []
    while not await communicator.receive_nothing(timeout=timeout):
        out.append(await communicator.receive_from(timeout=5))
    return out


def hand_cards(html):
    part = html[html.index('id="tbl-hand"'):html.index('id="tbl-controls"')]
    return {int(c) for c in CARD.findall(part)}


async def state_of(table):
    return await database_sync_to_async(current)(table)


async def snapshot(table):
    def read():
        deal = live_selectors.current_deal(table)
        return deal.seq, deal.state, Action.objects.filter(deal=deal).count()

    return await database_sync_to_async(read)()


async def test_a_seat_sees_its_own_hand_and_a_spectator_none(playing_table):
    table, users = playing_table
    deal, state = await state_of(table)
    seat_page, html = await connect(table, users[1])
    assert hand_cards(html) == set(state.hands[1])
    assert 'id="play-form"' in html
    watcher, html = await connect(table)
    assert hand_cards(html) == set()
    assert 'id="play-form"' not in html and "You are watching" in html
    await seat_page.disconnect()
    await watcher.disconnect()


async def test_play_and_pass_over_the_socket_reach_every_page(playing_table):
    table, users = playing_table
    deal, state = await state_of(table)
    leader = state.turn
    pages = [(await connect(table, users[s]))[0] for s in range(4)]
    card = min(state.hands[leader])
    await pages[leader].send_json_to({"action": "play", "card": [str(card)], "deal": str(deal.pk), "seq": str(deal.seq)})
    for page in pages:
        got = await drain(page)
        assert any(f'data-seq="{deal.seq + 1}"' in m for m in got)
    deal, state = await state_of(table)
    follower = state.turn
    await pages[follower].send_json_to({"action": "pass", "deal": deal.pk, "seq": deal.seq})
    await drain(pages[follower])
    assert (await snapshot(table))[0] == deal.seq + 1
    for page in pages:
        await page.disconnect()


@pytest.mark.parametrize(
    "message, rule",
    [
        ("not json at all", "R9.1"),
        (json.dumps([1, 2, 3]), "R9.1"),
        (json.dumps({"action": "play", "card": ["banana"], "deal": 1, "seq": 0}), "R1.4"),
        (json.dumps({"action": "play", "card": ["500"], "deal": 1, "seq": 0}), "R1.4"),
        (json.dumps({"action": "teleport"}), "R9.1"),
        (json.dumps({"action": "play", "card": "1", "seq": "x"}), "R9.1"),
        ("x" * 5000, "R9.1"),
    ],
)
async def test_junk_gets_a_clear_error_and_changes_nothing(playing_table, message, rule):
    table, users = playing_table
    deal, state = await state_of(table)
    page, _ = await connect(table, users[state.turn])
    before = await snapshot(table)
    await page.send_to(text_data=message)
    reply = await page.receive_from(timeout=5)
    assert re.search(r'id="tbl-message"[^>]*><a class="rule-link" href="/rules/#(' + rule + r'[0-9.]*)">\1</a>:', reply), reply[:500]
    assert await snapshot(table) == before
    await page.disconnect()


async def test_refusals_over_the_socket(playing_table):
    table, users = playing_table
    deal, state = await state_of(table)
    leader = state.turn
    other = (leader + 1) % 4
    before = await snapshot(table)
    cases = [
        (users[other], {"action": "play", "card": [state.hands[other][0]], "deal": deal.pk, "seq": deal.seq}, "R6.2"),
        (users[leader], {"action": "play", "card": [state.hands[leader][0]], "deal": deal.pk, "seq": deal.seq + 5}, "R9.1"),
        (users[leader], {"action": "play", "card": [state.hands[other][0]], "deal": deal.pk, "seq": deal.seq}, "R9.1"),
        (users[leader], {"action": "pass", "deal": deal.pk, "seq": deal.seq}, "R6.1"),
        (users[leader], {"action": "play", "card": [], "deal": deal.pk, "seq": deal.seq}, "R6.1"),
        (users[leader], {"action": "tribute", "card": [state.hands[leader][0]], "deal": deal.pk, "seq": deal.seq}, "R"),
    ]
    # An illegal combination: two cards of different ranks that no wild can join.
    hand = sorted(state.hands[leader])
    from games.engine.combos import readings_of

    pair = next(([a, b] for a in hand for b in hand if a < b and not readings_of([a, b], state.level)), None)
    if pair:
        cases.append((users[leader], {"action": "play", "card": pair, "deal": deal.pk, "seq": deal.seq}, "R4"))
    for user, message, rule in cases:
        page, _ = await connect(table, user)
        await page.send_json_to(message)
        reply = await page.receive_from(timeout=5)
        assert re.search(r'id="tbl-message"[^>]*><a class="rule-link" href="/rules/#(' + rule + r'[0-9.]*)">\1</a>:', reply), (message, reply[:300])
        # The cards stay selected after a refusal (R9.1).
        for card in message.get("card", []):
            if card in state.hands[leader] and user == users[leader]:
                assert f'value="{card}" form="play-form" aria-label' in reply
        await page.disconnect()
    assert await snapshot(table) == before


async def test_a_spectator_cannot_act(playing_table):
    table, users = playing_table
    deal, state = await state_of(table)
    page, _ = await connect(table)
    before = await snapshot(table)
    await page.send_json_to({"action": "pass", "deal": deal.pk, "seq": deal.seq})
    reply = await page.receive_from(timeout=5)
    assert "R10.5" in reply
    assert await snapshot(table) == before
    await page.disconnect()


@pytest.mark.rigged_deal
async def test_several_readings_offer_play_as_buttons(playing_table):
    """R3.5: a wild completing a straight high or low: the player chooses."""
    table, users = playing_table

    def rig():
        # Seat 1 leads at level 2 holding 3 4 5 6 and a wild 2H: 2-6 or 3-7 (R3.5).
        from games.engine.cards import parse_faces

        deal, state = current(table)
        mine = parse_faces(["3S", "4D", "5C", "6S", "2H"])
        rest = [c for c in range(108) if c not in mine]
        hands = [mine + rest[:22], rest[22:49], rest[49:76], rest[76:103]]
        fresh = new_deal(hands=hands, level=0, team_levels=(0, 0), prev_places=None, seed=deal.seed)
        from dataclasses import replace

        fresh = replace(fresh, lead_seat=0, turn=0)
        deal.hands, deal.state = hands, state_to_json(fresh)
        deal.save()
        forget_scenes()  # the deal changed outside the door
        return deal, mine

    deal, mine = await database_sync_to_async(rig)()
    page, _ = await connect(table, users[0])
    await page.send_json_to({"action": "play", "card": mine, "deal": deal.pk, "seq": deal.seq})
    reply = await page.receive_from(timeout=5)
    options = re.findall(r'value="(play-as-\d+)"[^>]*>([^<]+)<', reply)
    names = {name for _value, name in options}
    assert any("straight A-5" in n or "straight 2-6" in n for n in names) and any("3-7" in n for n in names), names
    value = next(v for v, n in options if "3-7" in n)
    await page.send_json_to({"action": value, "card": mine, "deal": deal.pk, "seq": deal.seq})
    await drain(page)

    def last_reading():
        return Action.objects.filter(deal=deal).order_by("-seq").first().reading

    assert await database_sync_to_async(last_reading)() == {"shape": "straight", "top": "7"}
    await page.disconnect()


async def test_reconnecting_gets_the_whole_table_again(playing_table):
    table, users = playing_table
    deal, state = await state_of(table)
    page, first = await connect(table, users[2])
    await page.disconnect()
    page, again = await connect(table, users[2])
    for fragment in ("tbl-seats", "tbl-trick", "tbl-log", "tbl-status", "tbl-hand", "tbl-controls"):
        assert f'id="{fragment}"' in again
    assert hand_cards(again) == hand_cards(first)
    await page.disconnect()


async def test_a_friend_table_is_not_watched_without_the_invitation(make_user, make_table):
    """R10.3: friend tables are private; the socket refuses a stranger as the page does."""
    host = await database_sync_to_async(make_user)()
    stranger = await database_sync_to_async(make_user)()
    table = await database_sync_to_async(make_table)(host, kind="friend")
    headers = [ORIGIN, HOST, (b"cookie", await cookie_for(stranger))]
    communicator = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/", headers=headers)
    connected, _ = await communicator.connect()
    assert not connected
    page, _html = await connect_waiting(table, host)
    await page.disconnect()


async def connect_waiting(table, user):
    """A page of a table still waiting: the socket opens and stays quiet."""
    headers = [ORIGIN, HOST, (b"cookie", await cookie_for(user))]
    communicator = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/", headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    return communicator, None
