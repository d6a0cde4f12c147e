"""Quick play's pages and socket (R10.9): the panel and the slim bar, joining and leaving
with and without htmx, a friend's invitation, and the socket that keeps a waiting
player's place and takes them to the table once seated."""

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.urls import reverse

from games.quickplay import services
from games.quickplay.models import QueueEntry
from guandan_site.asgi import application
from tests.site.test_lobby_consumer import HOST, ORIGIN, session_cookie_for

pytestmark = pytest.mark.django_db(transaction=True)


# ----------------------------------------------------------------------------------------
# Pages


def test_the_lobby_offers_quick_play_with_the_open_tiers(client, make_user):
    html = client.get(reverse("games:lobby")).content.decode()
    assert 'data-testid="quickplay-go"' in html and "/accounts/login/?next=/play/" in html  # a visitor logs in first
    client.force_login(make_user(points=120))
    html = client.get(reverse("games:lobby")).content.decode()
    assert 'ws-connect="/ws/quickplay/"' in html
    panel = html[html.index('id="qp-panel"'):html.index('data-testid="quickplay-go"')]
    assert 'value="junior"' in panel and 'value="senior"' in panel and 'value="grandmaster"' not in panel  # R10.7


def test_joining_and_leaving_by_plain_forms(client, make_user):
    player = make_user()
    client.force_login(player)
    response = client.post(reverse("quickplay:play"), {"tier": "junior"})
    assert response.status_code == 302 and response.url == reverse("quickplay:play")
    page = client.get(reverse("quickplay:play")).content.decode()
    assert 'data-testid="quickplay-waited"' in page and 'data-testid="quickplay-cancel"' in page
    assert QueueEntry.objects.get(user=player).invite_code in page  # the friend link
    response = client.post(reverse("quickplay:cancel"))
    assert response.status_code == 302 and not QueueEntry.objects.exists()


def test_joining_and_leaving_with_htmx_answer_the_panel(client, make_user):
    client.force_login(make_user())
    html = client.post(reverse("quickplay:play"), {"tier": "junior"}, HTTP_HX_REQUEST="true").content.decode()
    assert html.startswith('<div id="qp-panel"') or 'id="qp-panel"' in html.split(">")[0] + ">"
    assert "Finding players for a Junior table" in html
    html = client.post(reverse("quickplay:cancel"), HTTP_HX_REQUEST="true").content.decode()
    assert 'data-testid="quickplay-go"' in html
    refused = client.post(reverse("quickplay:play"), {"tier": "grandmaster"}, HTTP_HX_REQUEST="true").content.decode()
    assert "R10.7" in refused and 'href="/rules/#R10.7"' in refused and not QueueEntry.objects.exists()


def test_a_player_at_a_match_in_progress_goes_back_to_it(client, playing_table):
    table, users = playing_table
    client.force_login(users[0])
    response = client.post(reverse("quickplay:play"), {"tier": "junior"})
    assert response.status_code == 302 and response.url == reverse("games:table", args=[table.pk])
    htmx = client.post(reverse("quickplay:play"), {"tier": "junior"}, HTTP_HX_REQUEST="true")
    assert htmx.status_code == 204 and htmx["HX-Redirect"] == reverse("games:table", args=[table.pk])


def test_a_friends_invitation(client, make_user):
    host, friend = make_user(display_name="Xiao Mei"), make_user()
    entry = services.join(user=host, tier="junior")
    url = reverse("quickplay:invite", args=[entry.invite_code])
    visitor = client.get(url).content.decode()
    assert "Xiao Mei" in visitor and f"/accounts/login/?next={url}" in visitor
    client.force_login(friend)
    assert 'data-testid="quickplay-join-partner"' in client.get(url).content.decode()
    assert client.post(url).url == reverse("quickplay:play")
    assert QueueEntry.objects.get(user=friend).party == entry.party
    page = client.get(reverse("quickplay:play")).content.decode()
    assert "Queued with Xiao Mei" in page
    services.leave(user=host)
    services.leave(user=friend)
    assert "no longer waiting" in client.get(url).content.decode()


def test_a_waiting_players_other_pages_carry_the_bar_and_the_table_page_ends_it(client, make_user):
    player = make_user()
    client.force_login(player)
    assert "?view=bar" not in client.get("/rules/").content.decode()
    services.join(user=player, tier="junior")
    assert 'ws-connect="/ws/quickplay/?view=bar"' in client.get("/rules/").content.decode()
    others = [make_user() for _ in range(3)]
    for other in others:
        services.join(user=other, tier="junior")
    (table,) = services.match_tier("junior")
    assert client.get(reverse("quickplay:play")).url == reverse("games:table", args=[table.pk])
    client.get(reverse("games:table", args=[table.pk]))
    assert not QueueEntry.objects.filter(user=player).exists()  # arrived
    assert "?view=bar" not in client.get("/rules/").content.decode()


def test_quick_play_needs_a_signed_in_player(client):
    assert client.get(reverse("quickplay:play")).url.startswith(reverse("accounts:login"))
    assert client.post(reverse("quickplay:cancel")).url.startswith(reverse("accounts:login"))


# ----------------------------------------------------------------------------------------
# The socket


async def open_socket(user=None, view=""):
    headers = [ORIGIN, HOST]
    if user is not None:
        headers.append((b"cookie", await session_cookie_for(user)))
    path = "/ws/quickplay/" + (f"?view={view}" if view else "")
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, code = await communicator.connect()
    return communicator, connected, code


async def receive_until(communicator, text, timeout=5.0):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        message = await communicator.receive_from(timeout=max(0.1, deadline - loop.time()))
        if text in message:
            return message


@pytest.mark.asyncio
async def test_the_socket_refuses_visitors():
    communicator, connected, code = await open_socket()
    assert not connected and code == 4403


@pytest.mark.asyncio
async def test_the_socket_follows_the_players_place_and_takes_them_to_the_table(make_user, settings):
    settings.GUANDAN_QUICKPLAY_HEARTBEAT = 0.1
    player = await database_sync_to_async(make_user)()
    others = [await database_sync_to_async(make_user)() for _ in range(3)]
    socket, connected, _code = await open_socket(player)
    assert connected
    first = await socket.receive_from(timeout=5)
    assert 'id="qp-panel"' in first and 'data-testid="quickplay-go"' in first
    await database_sync_to_async(services.join)(user=player, tier="junior")
    waiting = await receive_until(socket, "quickplay-waited")
    assert "Finding players for a Junior table" in waiting and "1 waiting" in waiting
    # Another player joins: every page hears the count, without a query of its own.
    await database_sync_to_async(services.join)(user=others[0], tier="junior")
    count = await receive_until(socket, "2 waiting")
    assert count.startswith('<span id="qp-count-junior"')
    # The open page keeps the place.
    entry = await database_sync_to_async(QueueEntry.objects.get)(user=player)
    await asyncio.sleep(0.35)
    later = await database_sync_to_async(QueueEntry.objects.get)(user=player)
    assert later.seen_at > entry.seen_at
    for other in others[1:]:
        await database_sync_to_async(services.join)(user=other, tier="junior")
    (table,) = await database_sync_to_async(services.match_tier)("junior")
    seated = await receive_until(socket, "data-goto")
    assert f'data-goto="/tables/{table.pk}/"' in seated
    await socket.disconnect()


@pytest.mark.asyncio
async def test_the_bar_view(make_user):
    player = await database_sync_to_async(make_user)()
    await database_sync_to_async(services.join)(user=player, tier="junior")
    socket, connected, _code = await open_socket(player, view="bar")
    assert connected
    bar = await socket.receive_from(timeout=5)
    assert 'id="qp-bar"' in bar and "Quick play: finding a Junior table" in bar and "hidden" not in bar.split(">")[0]
    await database_sync_to_async(services.leave)(user=player)
    gone = await receive_until(socket, 'id="qp-bar"')
    assert "hidden" in gone.split(">")[0]
    await socket.disconnect()
