"""Each page of a table reads the table in its own viewer's language (issue 14): the
socket picks the language as the pages do (cookie, else Accept-Language), and switching
mid-deal changes that page's text at the next fragment, without a reload, while the
other seats keep theirs."""

import re

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings

from games.live.render import forget_scenes
from guandan_site.asgi import application

from .test_table_consumer import HOST, ORIGIN, connect, cookie_for, drain, snapshot, state_of

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

CJK = re.compile(r"[\u4e00-\u9fff]")


def text_of(html: str) -> str:
    """What a person reads of the fragments: tags dropped (not the markup)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def english_words(html: str) -> list[str]:
    words = re.findall(r"[A-Za-z]{3,}", text_of(html))
    return [w for w in words if not w.startswith("Player")]  # names


async def connect_with(table, user, *headers):
    cookie = await cookie_for(user)
    extra = list(headers)
    for i, (name, value) in enumerate(extra):
        if name == b"cookie":
            extra[i] = (b"cookie", cookie + b"; " + value)
            break
    else:
        extra.append((b"cookie", cookie))
    communicator = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/", headers=[ORIGIN, HOST, *extra])
    connected, _ = await communicator.connect()
    assert connected
    return communicator, await communicator.receive_from(timeout=5)


async def test_the_socket_reads_the_language_as_the_pages_do(playing_table):
    table, users = playing_table
    cookie = f"{settings.LANGUAGE_COOKIE_NAME}=zh-hans".encode()
    by_cookie, html = await connect_with(table, users[0], (b"cookie", cookie))
    assert CJK.search(text_of(html)) and not english_words(html), english_words(html)[:10]
    by_browser, html = await connect_with(table, users[1], (b"accept-language", b"zh-TW,zh;q=0.9"))
    assert CJK.search(text_of(html)) and not english_words(html)
    plain, html = await connect_with(table, users[2], (b"accept-language", b"en-US"))
    assert not CJK.search(text_of(html))
    for page in (by_cookie, by_browser, plain):
        await page.disconnect()


async def test_switching_mid_deal_changes_this_page_only(playing_table):
    table, users = playing_table
    deal, state = await state_of(table)
    leader = state.turn
    pages = {seat: (await connect(table, users[seat]))[0] for seat in range(4)}
    switcher = (leader + 1) % 4
    before = await snapshot(table)
    await pages[switcher].send_json_to({"action": "language", "language": "zh-hans"})
    reply = await pages[switcher].receive_from(timeout=5)
    assert CJK.search(text_of(reply)) and not english_words(reply), english_words(reply)[:10]
    assert "等待" in text_of(reply)
    assert await snapshot(table) == before  # nothing changed at the table
    # The next step of the deal: the switched page reads it in Chinese, the others in English.
    card = min(state.hands[leader])
    await pages[leader].send_json_to({"action": "play", "card": [card], "deal": deal.pk, "seq": deal.seq})
    for seat, page in pages.items():
        got = [m for m in await drain(page) if f'data-seq="{deal.seq + 1}"' in m]
        assert got, seat
        if seat == switcher:
            assert CJK.search(text_of(got[-1])) and "单张" in text_of(got[-1])
            assert not english_words(got[-1]), english_words(got[-1])[:10]
        else:
            assert not CJK.search(text_of(got[-1])) and "single" in text_of(got[-1])
    # And back: an unknown language keeps the page's language; English switches back.
    await pages[switcher].send_json_to({"action": "language", "language": "xx"})
    assert CJK.search(text_of(await pages[switcher].receive_from(timeout=5)))
    await pages[switcher].send_json_to({"action": "language", "language": "en"})
    assert not CJK.search(text_of(await pages[switcher].receive_from(timeout=5)))
    for page in pages.values():
        await page.disconnect()


async def test_a_refusal_in_chinese_keeps_its_rule_id_as_a_link(playing_table):
    table, users = playing_table
    deal, state = await state_of(table)
    cookie = f"{settings.LANGUAGE_COOKIE_NAME}=zh-hans".encode()
    other = (state.turn + 1) % 4
    page, _ = await connect_with(table, users[other], (b"cookie", cookie))
    await page.send_json_to({"action": "play", "card": [state.hands[other][0]], "deal": deal.pk, "seq": deal.seq})
    reply = await page.receive_from(timeout=5)
    message = re.search(r'id="tbl-message"[^>]*>(.*?)</p>', reply, re.S).group(1)
    assert message.startswith('<a class="rule-link" href="/rules/#R6.2">R6.2</a>：'), message
    assert CJK.search(message)
    await page.disconnect()


@pytest.mark.rigged_deal
async def test_offered_readings_are_renamed_when_the_page_switches(playing_table):
    """R3.5: the "play as" buttons offered before a switch are named in the new language,
    and choosing one still plays that reading."""
    from channels.db import database_sync_to_async

    from games.models import Action

    from .test_table_consumer import current, new_deal, state_to_json

    table, users = playing_table

    def rig():
        # Seat 1 leads at level 2 holding 3 4 5 6 and a wild 2H: 2-6 or 3-7 (R3.5).
        from dataclasses import replace

        from games.engine.cards import parse_faces

        deal, state = current(table)
        mine = parse_faces(["3S", "4D", "5C", "6S", "2H"])
        rest = [c for c in range(108) if c not in mine]
        hands = [mine + rest[:22], rest[22:49], rest[49:76], rest[76:103]]
        fresh = replace(new_deal(hands=hands, level=0, team_levels=(0, 0), prev_places=None, seed=deal.seed),
                        lead_seat=0, turn=0)
        deal.hands, deal.state = hands, state_to_json(fresh)
        deal.save()
        forget_scenes()  # the deal changed outside the door
        return deal, mine

    deal, mine = await database_sync_to_async(rig)()
    page, _ = await connect(table, users[0])
    await page.send_json_to({"action": "play", "card": mine, "deal": deal.pk, "seq": deal.seq})
    english = re.findall(r'value="(play-as-\d+)"[^>]*>([^<]+)<', await page.receive_from(timeout=5))
    assert any("3-7" in name and "straight" in name for _v, name in english), english
    await page.send_json_to({"action": "language", "language": "zh-hans"})
    reply = await page.receive_from(timeout=5)
    chinese = re.findall(r'value="(play-as-\d+)"[^>]*>([^<]+)<', reply)
    assert [v for v, _n in chinese] == [v for v, _n in english]
    assert all(CJK.search(name) and "straight" not in name for _v, name in chinese), chinese
    assert "R3.5" in reply and CJK.search(text_of(reply))
    value = next(v for v, name in chinese if "顺子 3-7" in name)
    await page.send_json_to({"action": value, "card": mine, "deal": deal.pk, "seq": deal.seq})
    await drain(page)

    def last_reading():
        return Action.objects.filter(deal=deal).order_by("-seq").first().reading

    assert await database_sync_to_async(last_reading)() == {"shape": "straight", "top": "7"}
    await page.disconnect()
