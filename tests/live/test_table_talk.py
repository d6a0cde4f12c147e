"""Table talk (快捷语): preset phrases and emotes shown by the speaking seat on every page
of the table, in each page's own language; one every 3 s per player; muted per player;
switched off for the table by any seated player. Nothing is stored, nothing at the table
changes, and every refusal names its rule."""

import re

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.core.cache import cache

from accounts.models import Profile
from games.live import talk
from games.models import Table

from .test_table_consumer import connect, drain, snapshot
from .test_consumer_input import message_of

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def no_talk_limit_left_over():
    cache.delete_many([f"talk:{n}" for n in range(1, 200)])


async def open_page(table, user=None, language="en"):
    """A page of the table in ``language`` (its Accept-Language) and its first message."""
    return await connect(table, user, extra=[(b"accept-language", language.encode())])


def bubble_of(messages, number):
    for html in messages:
        found = re.search(rf'<div id="tbl-talk-{number}" class="seat-talk is-on"[^>]*>(.*?)</div>', html, re.S)
        if found:
            return re.sub(r"<[^>]+>", " ", found.group(1))
    return None


async def test_a_phrase_shows_by_its_seat_on_every_page_in_each_language(playing_table):
    table, users = playing_table
    before = await snapshot(table)
    speaker, first = await open_page(table, users[2])
    assert 'id="tbl-talk"' in first and 'value="hurry"' in first and "Hurry up!" in first  # the panel
    partner, _ = await open_page(table, users[0], language="zh-CN")
    watcher, _ = await open_page(table)
    assert 'value="hurry"' not in _  # a spectator is offered no phrases
    await speaker.send_json_to({"action": "talk", "phrase": "hurry"})
    assert "Hurry up!" in bubble_of(await drain(speaker), 3)
    assert "快点吧！" in bubble_of(await drain(partner), 3)
    assert "Hurry up!" in bubble_of(await drain(watcher), 3)
    await speaker.send_json_to({"action": "talk", "phrase": "thumbs-up"})  # too soon
    refusal = message_of((await drain(speaker))[-1])
    assert refusal.startswith("R9.1") and "3 seconds" in refusal
    assert bubble_of(await drain(watcher), 3) is None
    assert await snapshot(table) == before  # nothing at the table changed, nothing stored
    for page in (speaker, partner, watcher):
        await page.disconnect()


async def test_junk_and_spectators_are_refused_with_their_rule(playing_table, make_user):
    table, users = playing_table
    player, _ = await open_page(table, users[1])
    await player.send_json_to({"action": "talk", "phrase": "<script>"})
    assert message_of((await drain(player))[-1]).startswith("R9.1")
    await player.send_json_to({"action": "talk", "phrase": ["hurry"]})
    assert message_of((await drain(player))[-1]).startswith("R9.1")
    stranger = await database_sync_to_async(make_user)()
    watcher, _ = await open_page(table, stranger)
    await watcher.send_json_to({"action": "talk", "phrase": "hurry"})
    assert message_of((await drain(watcher))[-1]).startswith("R10.5")
    assert bubble_of(await drain(player), 2) is None
    for page in (player, watcher):
        await page.disconnect()


async def test_a_player_who_mutes_table_talk_sees_and_sends_none(playing_table):
    table, users = playing_table
    speaker, _ = await open_page(table, users[0])
    quiet, _ = await open_page(table, users[1])
    await quiet.send_json_to({"action": "talk-mute", "on": "1"})
    panel = (await drain(quiet))[-1]
    assert "You have muted table talk" in panel and 'value="hurry"' not in panel
    assert await database_sync_to_async(Profile.objects.filter(user=users[1], mute_talk=True).exists)()
    await speaker.send_json_to({"action": "talk", "phrase": "sorry"})
    assert "Sorry!" in bubble_of(await drain(speaker), 1)
    assert bubble_of(await drain(quiet), 1) is None
    await quiet.send_json_to({"action": "talk", "phrase": "sorry"})
    assert message_of((await drain(quiet))[-1]).startswith("R9.1")
    # The setting follows the player to their next page.
    again, first = await open_page(table, users[1])
    assert "You have muted table talk" in first
    for page in (speaker, quiet, again):
        await page.disconnect()


async def test_any_seated_player_switches_talk_off_for_the_table(playing_table):
    table, users = playing_table
    pages = [(await open_page(table, user))[0] for user in users[:2]]
    await pages[0].send_json_to({"action": "talk-table", "on": "0"})
    for page in pages:
        panel = (await drain(page))[-1]
        assert "Table talk is off at this table" in panel and users[0].profile.display_name in panel
    await pages[1].send_json_to({"action": "talk", "phrase": "hurry"})
    assert message_of((await drain(pages[1]))[-1]).startswith("R9.1")
    # Another player cannot switch it back on for the one who switched it off.
    await pages[1].send_json_to({"action": "talk-table", "on": "1"})
    await drain(pages[0])
    refreshed = await database_sync_to_async(Table.objects.get)(pk=table.pk)
    assert refreshed.talk_off_by == [users[0].pk]
    await pages[0].send_json_to({"action": "talk-table", "on": "1"})
    await drain(pages[1])
    await pages[1].send_json_to({"action": "talk", "phrase": "wow"})
    assert "😮" in bubble_of(await drain(pages[0]), 2)
    for page in pages:
        await page.disconnect()


async def test_every_phrase_has_words_in_both_languages():
    from django.utils import translation

    for key in [*talk.PHRASES, *talk.EMOTES]:
        with translation.override("zh-hans"):
            chinese = talk.words(key)
        with translation.override("en"):
            english = talk.words(key)
        if key in talk.PHRASES:
            assert chinese[0] != english[0], key
        assert chinese[1] != english[1], key
    assert settings.LANGUAGE_CODE == "en"


async def test_the_profile_page_keeps_the_setting(make_user):
    from django.test import Client

    def check():
        player = make_user()
        client = Client()
        client.force_login(player)
        assert "Mute table talk" in client.get("/accounts/profile/").content.decode()
        client.post("/accounts/profile/", {"mute_talk": "1"})
        assert Profile.objects.get(user=player).mute_talk
        assert "Unmute table talk" in client.get("/accounts/profile/").content.decode()
        client.post("/accounts/profile/", {"mute_talk": "0"})
        assert not Profile.objects.get(user=player).mute_talk

    await database_sync_to_async(check)()
