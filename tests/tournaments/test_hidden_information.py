"""Hidden information in tournaments (R13.6, R13.2): nothing about a board before it is
played, and while a round is in play no one sees another table's result on a board they
have not finished. Every page, fragment, socket message, replay and export of a
tournament is scanned while one table of the round has finished and another has not."""

import re

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse

from games.live import door
from games.live import selectors as live_selectors
from games.models import Deal
from games.tournaments import services
from games.tournaments.models import Board, Pairing
from guandan_site.asgi import application

from ..live.test_table_consumer import HOST, ORIGIN, cookie_for
from .conftest import absent, close_registration

pytestmark = pytest.mark.django_db(transaction=True)

CARD = re.compile(r'data-card="(\d+)"')
RESULTS = ("trn-standings", "board-comparison", "Match points", "win the board")


def play_table_to_its_end(table):
    """The bots and the autopilot play every board of one table, nothing else moves."""
    for _ in range(5000):
        table.refresh_from_db()
        if not table.is_open:
            return
        deal = live_selectors.current_deal(table)
        if deal.finished_at is not None:
            door.start_next_deal(table_id=table.pk, deal_id=deal.pk)
        else:
            door.run_table_turn(table_id=table.pk, deal_id=deal.pk, seq=deal.seq)
    raise AssertionError("the table did not finish")


def client_for(user=None):
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def assert_hides_round(html, boards):
    """No card at all, and nothing that is a result."""
    assert not CARD.search(html), "a card on a tournament page during its round"
    for marker in RESULTS:
        assert marker not in html, marker
    for board in boards:
        assert str(board.hands[0][:3])[1:-1] not in html


@pytest.fixture
def mid_round(make_tournament, make_user):
    """Round 1 of four pairs in play: table 1 has played its boards, table 2 has not."""
    tournament, players = make_tournament(pairs=4, rounds=2, boards_per_round=2)
    close_registration(tournament)
    absent(tournament)
    services.advance(tournament_id=tournament.pk)
    first, second = Pairing.objects.filter(round__tournament=tournament).order_by("number")[:2]
    play_table_to_its_end(first.table)
    services.advance(tournament_id=tournament.pk)  # nothing to do: table 2 is still playing
    tournament.refresh_from_db()
    assert tournament.round_set.get(number=1).status == "playing"
    done = [r.user for r in first.ns.registrations.all()]
    playing = [r.user for r in second.ns.registrations.all()]
    return tournament, first, second, done, playing, make_user()


def test_pages_during_a_round_show_no_board_and_no_result(mid_round):
    tournament, first, second, done, playing, spectator = mid_round
    boards = list(Board.objects.filter(tournament=tournament))
    deal = Deal.objects.filter(match__table=first.table).first()
    for user in (playing[0], spectator, None):
        client = client_for(user)
        for url in (reverse("tournaments:list"), reverse("tournaments:detail", args=[tournament.pk]),
                    reverse("tournaments:live", args=[tournament.pk]),
                    reverse("tournaments:entrant", args=[tournament.pk, first.ns.number]),
                    reverse("tournaments:entrant", args=[tournament.pk, second.ns.number])):
            assert_hides_round(client.get(url).content.decode(), boards)
        # R13.6: a board's page waits for the round's end, for every board of the round.
        for number in (1, 2):
            response = client.get(reverse("tournaments:board", args=[tournament.pk, 1, number]))
            assert response.status_code == 403 and not CARD.search(response.content.decode())
        # Boards of later rounds: not even their page.
        assert client.get(reverse("tournaments:board", args=[tournament.pk, 2, 1])).status_code == 404
        # Table 1's finished deals: replays, exports and history are not public yet.
        for url in (reverse("replays:deal", args=[deal.pk]), reverse("replays:deal_json", args=[deal.pk]),
                    reverse("replays:match", args=[deal.match_id])):
            assert client.get(url).status_code == 404, url
    # An entrant still playing does not watch the table that finished (it played the
    # boards they have not); the one that finished watches theirs.
    assert client_for(playing[0]).get(reverse("games:table", args=[first.table_id])).status_code == 404
    assert client_for(done[0]).get(reverse("games:table", args=[second.table_id])).status_code == 200
    # Someone not in the tournament watches any table live (public, spectator's view).
    assert client_for(spectator).get(reverse("games:table", args=[second.table_id])).status_code == 200
    # The table's own players see their own finished boards.
    assert client_for(done[0]).get(reverse("replays:deal", args=[deal.pk])).status_code == 200


@pytest.mark.asyncio
async def test_sockets_during_a_round_show_no_board_and_no_result(mid_round):
    tournament, first, second, done, playing, spectator = mid_round
    boards = await database_sync_to_async(lambda: list(Board.objects.filter(tournament=tournament)))()
    # The tournament's socket, for an entrant still playing and for a spectator.
    for user in (playing[0], spectator):
        page = WebsocketCommunicator(application, f"/ws/tournaments/{tournament.pk}/",
                                     headers=[ORIGIN, HOST, (b"cookie", await cookie_for(user))])
        connected, _ = await page.connect()
        assert connected
        assert_hides_round(await page.receive_from(timeout=5), boards)
        await page.disconnect()
    # An entrant still playing cannot open the finished table's socket (R13.6).
    page = WebsocketCommunicator(application, f"/ws/tables/{first.table_id}/",
                                 headers=[ORIGIN, HOST, (b"cookie", await cookie_for(playing[0]))])
    connected, code = await page.connect()
    assert not connected and code == 4404
    # The one whose table finished opens the other table's socket: a spectator's view.
    page = WebsocketCommunicator(application, f"/ws/tables/{second.table_id}/",
                                 headers=[ORIGIN, HOST, (b"cookie", await cookie_for(done[0]))])
    connected, _ = await page.connect()
    assert connected
    html = await page.receive_from(timeout=5)
    assert 'id="tbl-hand"' not in html or not CARD.search(html[html.index('id="tbl-hand"'):])
    await page.disconnect()


def test_after_the_round_everything_is_public(mid_round):
    tournament, first, second, done, playing, spectator = mid_round
    play_table_to_its_end(second.table)
    services.advance(tournament_id=tournament.pk)
    deal = Deal.objects.filter(match__table=first.table).first()
    client = client_for(spectator)
    board = client.get(reverse("tournaments:board", args=[tournament.pk, 1, 1])).content.decode()
    assert "board-comparison" in board and len(CARD.findall(board)) == 108
    assert client.get(reverse("replays:deal", args=[deal.pk])).status_code == 200
    page = client.get(reverse("tournaments:detail", args=[tournament.pk])).content.decode()
    assert "trn-standings" in page and "Round 2: tables" in page  # R13.6: the next pairings too
    # Round 2's boards are still secret.
    assert client.get(reverse("tournaments:board", args=[tournament.pk, 2, 1])).status_code == 403
