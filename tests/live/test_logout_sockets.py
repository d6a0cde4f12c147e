"""Logging out ends the sockets that session opened: none keeps acting for the user."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from games.models import Seat
from guandan_site.asgi import application

from .test_table_consumer import HOST, ORIGIN, drain

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def open_socket(path, client):
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode()
    communicator = WebsocketCommunicator(application, path, headers=[ORIGIN, HOST, (b"cookie", cookie)])
    connected, _ = await communicator.connect()
    assert connected
    await communicator.receive_from(timeout=5)
    return communicator


async def test_logout_closes_that_sessions_sockets_only(practice_table):
    # A practice table: auto play (the action that shows a socket acting) is offered
    # there, not at match tables (R10.8).
    table, user = await database_sync_to_async(practice_table)()
    users = [user]
    browser, other_browser = Client(), Client()
    await database_sync_to_async(browser.force_login)(users[0])
    await database_sync_to_async(other_browser.force_login)(users[0])
    table_page = await open_socket(f"/ws/tables/{table.pk}/", browser)
    lobby_page = await open_socket("/ws/lobby/", browser)
    elsewhere = await open_socket(f"/ws/tables/{table.pk}/", other_browser)

    response = await database_sync_to_async(browser.post)("/accounts/logout/")
    assert response.status_code == 302
    for page in (table_page, lobby_page):
        closed = await page.receive_output(timeout=5)
        assert closed == {"type": "websocket.close", "code": 4401}
    # The socket cannot act for the logged-out user any more; the other browser's can.
    await elsewhere.send_json_to({"action": "auto-on", "auto_interval": "1"})
    await drain(elsewhere)
    assert await Seat.objects.filter(table=table, position=0, auto_play__isnull=False).aexists()
    await elsewhere.disconnect()
