"""The analysis socket of a replay page: the status at once, progress as it runs, the
verdicts' arrival; refused for a deal in play and for a private match's outsiders."""

import random

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games.analysis import services
from games.models import DealAnalysis
from games.tables import services as table_services
from guandan_site.asgi import application

from ..live.test_table_consumer import HOST, ORIGIN, cookie_for
from ..replays import factories

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def _open(deal, user=None):
    headers = [ORIGIN, HOST]
    if user is not None:
        headers.append((b"cookie", await cookie_for(user)))
    communicator = WebsocketCommunicator(application, f"/ws/analysis/deals/{deal.pk}/", headers=headers)
    connected, _ = await communicator.connect()
    return communicator, connected


async def test_the_page_sees_the_status_then_the_progress_then_the_verdicts(finished, players, quick_analysis):
    analysis = await database_sync_to_async(services.request_analysis)(deal=finished, user=players[0], send=False)
    page, connected = await _open(finished, players[0])
    assert connected
    first = await page.receive_from(timeout=5)
    assert 'id="analysis-status"' in first and 'hx-swap-oob="true"' in first and "waiting its turn" in first
    assert "data-card" not in first
    await database_sync_to_async(services.run_analysis)(analysis.pk)
    seen = []
    while True:
        html = await page.receive_from(timeout=10)
        seen.append(html)
        if "data-analysis-ready" in html:
            break
    running = [h for h in seen if "analysis-status--running" in h]
    assert running and 'max="' in running[-1]
    assert "Analysed by the expert." in seen[-1]
    assert all("data-card" not in h for h in seen)
    await page.disconnect()


async def test_the_page_in_chinese_gets_chinese(finished, players):
    await database_sync_to_async(services.request_analysis)(deal=finished, user=players[0], send=False)
    headers = [ORIGIN, HOST, (b"accept-language", b"zh-CN,zh;q=0.9")]
    page = WebsocketCommunicator(application, f"/ws/analysis/deals/{finished.pk}/", headers=headers)
    assert (await page.connect())[0]
    html = await page.receive_from(timeout=5)
    assert "waiting its turn" not in html and "分析" in html
    await page.disconnect()


async def test_junk_from_the_page_is_ignored(finished):
    page, connected = await _open(finished)
    assert connected
    await page.receive_from(timeout=5)
    await page.send_to(text_data="{not json")
    await page.send_to(text_data='{"action": "analyse"}')
    assert await page.receive_nothing(timeout=0.3)
    assert not await database_sync_to_async(DealAnalysis.objects.exists)()
    await page.disconnect()


async def test_a_deal_in_play_has_no_analysis_socket(match, players):
    played = await database_sync_to_async(factories.play)(
        await database_sync_to_async(factories.deal_next)(match), rng=random.Random(3), max_actions=5)
    _page, connected = await _open(played.deal, players[0])
    assert not connected


async def test_a_friend_tables_deal_is_closed_to_outsiders(make_user):
    @database_sync_to_async
    def friend_deal():
        host, partner = make_user(), make_user()
        table = table_services.create_table(host=host, kind="friend", tier="")
        table_services.take_seat(table=table, user=partner, position=2, invite_code=table.invite_code)
        table_services.fill_with_bots(table=table, user=host)
        match = table_services.start_match(table=table, user=host)
        return host, factories.play_deals(match, 1, seed=2)[0].deal

    host, deal = await friend_deal()
    outsider = await database_sync_to_async(make_user)()
    _page, connected = await _open(deal, outsider)
    assert not connected
    page, connected = await _open(deal, host)
    assert connected
    await page.disconnect()
