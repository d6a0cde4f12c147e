"""The lobby under a crowd: changes are coalesced into at most one render pass per
interval, and every anonymous viewer gets the same fragment, drawn once."""

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games.tables import consumers, services
from guandan_site.asgi import application

from .test_lobby_consumer import HOST, ORIGIN, connect

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def latest(communicator, quiet=1.0):
    message = None
    while not await communicator.receive_nothing(timeout=quiet):
        message = await communicator.receive_from(timeout=5)
    return message


async def test_a_crowd_of_anonymous_pages_costs_one_render_per_pass(make_user, monkeypatch):
    monkeypatch.setattr(consumers, "LOBBY_INTERVAL", 0.3)
    renders, passes = [], []
    real_render, real_pass = consumers.render_to_string, consumers._LobbyHub.send_all
    monkeypatch.setattr(consumers, "render_to_string", lambda *a, **k: renders.append(1) or real_render(*a, **k))

    async def counted_pass(hub):
        passes.append(hub.loop.time())
        await real_pass(hub)

    monkeypatch.setattr(consumers._LobbyHub, "send_all", counted_pass)
    hosts = [await database_sync_to_async(make_user)(display_name=f"Host {n}") for n in range(5)]

    pages = []
    for _ in range(30):
        communicator = WebsocketCommunicator(application, "/ws/lobby/", headers=[ORIGIN, HOST])
        assert (await communicator.connect())[0]
        await communicator.receive_from(timeout=5)
        pages.append(communicator)
    assert len(renders) == 1  # every page was sent the same fragment

    renders.clear()
    tables = [await database_sync_to_async(services.create_table)(host=host, kind="practice") for host in hosts]
    await latest(pages[0])  # quiet for a second: every pass is done
    finals = [await latest(page, quiet=0.05) for page in pages[1:]]
    assert len(set(finals)) == 1
    assert all(f'data-table-id="{table.pk}"' in finals[0] for table in tables)
    # Thirty pages: one render a pass, and passes at least an interval apart. (How many
    # passes depends on the timing, and with Redis on other test processes' changes too.)
    assert passes and len(renders) == len(passes)
    assert all(later - earlier >= 0.3 - 0.01 for earlier, later in zip(passes, passes[1:]))
    for page in pages:
        await page.disconnect()


async def test_signed_in_pages_still_get_their_own_lobby(make_user, monkeypatch):
    monkeypatch.setattr(consumers, "LOBBY_INTERVAL", 0.2)
    host = await database_sync_to_async(make_user)()
    host_page, _ = await connect(host)
    anonymous, _ = await connect()
    await host_page.receive_from(timeout=5)
    await anonymous.receive_from(timeout=5)
    table = await database_sync_to_async(services.create_table)(host=host, kind="friend")
    assert f'data-table-id="{table.pk}"' in await latest(host_page)
    assert f'data-table-id="{table.pk}"' not in await latest(anonymous)
    await host_page.disconnect()
    await anonymous.disconnect()
    await asyncio.sleep(0)
