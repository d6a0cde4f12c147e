"""The lobby's WebSocket: a fragment on connect, a fresh one after every table change,
rendered for each viewer, and only from allowed origins."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from games.tables import services
from guandan_site.asgi import application

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

ORIGIN = (b"origin", b"http://127.0.0.1:8000")
HOST = (b"host", b"127.0.0.1:8000")


@database_sync_to_async
def session_cookie_for(user):
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode()


async def connect(user=None, origin=ORIGIN):
    headers = [origin, HOST]
    if user is not None:
        headers.append((b"cookie", await session_cookie_for(user)))
    communicator = WebsocketCommunicator(application, "/ws/lobby/", headers=headers)
    connected, _ = await communicator.connect()
    return communicator, connected


async def test_sends_the_lobby_on_connect_and_after_each_change(make_user):
    host = await database_sync_to_async(make_user)(display_name="Lobby Host")
    communicator, connected = await connect()
    assert connected
    first = await communicator.receive_from(timeout=5)
    assert first.startswith('<div id="lobby-tables"') or first.lstrip().startswith('<div id="lobby-tables"')
    assert "Lobby Host" not in first

    table = await database_sync_to_async(services.create_table)(host=host, kind="practice")
    update = await communicator.receive_from(timeout=5)
    assert f'data-table-id="{table.pk}"' in update and "Lobby Host" in update
    assert 'id=""' not in update
    await communicator.disconnect()


async def test_renders_for_its_own_viewer(make_user):
    """Friend tables stay private (R10.3): the host's socket shows it, a stranger's not."""
    host = await database_sync_to_async(make_user)()
    host_socket, _ = await connect(host)
    stranger_socket, _ = await connect()
    await host_socket.receive_from(timeout=5)
    await stranger_socket.receive_from(timeout=5)

    table = await database_sync_to_async(services.create_table)(host=host, kind="friend")
    for_host = await host_socket.receive_from(timeout=5)
    for_stranger = await stranger_socket.receive_from(timeout=5)
    assert f'data-table-id="{table.pk}"' in for_host
    assert "Continue" in for_host  # the host sits there
    assert f'data-table-id="{table.pk}"' not in for_stranger
    await host_socket.disconnect()
    await stranger_socket.disconnect()


async def test_seat_buttons_carry_no_empty_ids_and_post_with_htmx(make_user):
    host, viewer = await database_sync_to_async(make_user)(), await database_sync_to_async(make_user)()
    await database_sync_to_async(services.create_table)(host=host, kind="match", tier="junior")
    socket, _ = await connect(viewer)
    html = await socket.receive_from(timeout=5)
    assert html.count(">Take seat</button>") == 3
    assert 'hx-post="/tables/' in html
    assert "csrfmiddlewaretoken" not in html  # no request here: htmx sends the header token
    await socket.disconnect()


async def test_refuses_foreign_origins():
    communicator, connected = await connect(origin=(b"origin", b"http://evil.example"))
    assert not connected
    await communicator.disconnect()


@pytest.mark.parametrize("signed_in", [False, True])
async def test_the_switcher_redraws_the_tables_in_the_new_language(make_user, signed_in):
    """The header's switcher tells the lobby's socket (static/site/language.js): the
    tables come again at once in the new language, not at the next change or reload."""
    host = await database_sync_to_async(make_user)(display_name="Lobby Lang")
    await database_sync_to_async(services.create_table)(host=host, kind="practice")
    communicator, connected = await connect(host if signed_in else None)
    assert connected
    english = await communicator.receive_from(timeout=5)
    assert "Practice table" in english and "练习桌" not in english
    await communicator.send_to(text_data='{"action": "language", "language": "zh-hans"}')
    chinese = await communicator.receive_from(timeout=5)
    assert "练习桌" in chinese and "Practice table" not in chinese
    # Junk is ignored, and the socket stays.
    await communicator.send_to(text_data="not json")
    await communicator.send_to(text_data='{"action": "language", "language": "xx"}')
    assert await communicator.receive_nothing(timeout=0.3)
    await communicator.disconnect()
