"""The bot endpoint end to end: a protocol-compatible test bot plays whole deals at a
friend table with two people and a built-in bot; refusals name their rule and change
nothing; tokens; match tables refuse bots."""

import asyncio
import json
import random

import pytest

from games.engine.views import view_for
from games.live import selectors as live_selectors
from games.models import Action, Seat, Table
from games.tables import services

from ..live.helpers import act, current
from .conftest import ProtocolBot, closed_with, connect_bot, db, messages

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]
DEALS = 1  # whole deals the test bot plays (about a minute each on this machine)


async def friend_table_with_bot(make_user, make_table, make_bot):
    """Host (seat 1) and a friend (seat 2), the API bot in seat 3 (with the invitation
    code), a built-in bot in seat 4; the match started. Returns (table, humans by seat,
    bot account, communicator)."""
    host, friend = await db(make_user), await db(make_user)
    table = await db(make_table, host, kind="friend")
    await db(services.take_seat, table=table, user=friend, position=1, invite_code=table.invite_code)
    bot, token = await db(make_bot, host)
    communicator, connected = await connect_bot(token, table.pk, 3, table.invite_code)
    assert connected
    await db(services.fill_with_bots, table=table, user=host)
    await db(services.start_match, table=table, user=host)
    await db(table.refresh_from_db)
    return table, {0: host, 1: friend}, bot, communicator


async def wait_for_step_after(table, deal_id, step, tries=100):
    """Wait until the bot's answer (handled by its consumer) has moved the deal on."""
    for _ in range(tries):
        deal = await db(live_selectors.current_deal, table)
        if deal.pk != deal_id or deal.seq > step:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the bot's answer did not move the deal on")


async def play(table, humans, bot_player, timers, *, deals, limit=6000):
    """Play until ``deals`` deals have finished: people through the door, the built-in bot
    by its timers, the API bot over the socket. Returns the finished deals' ids."""
    rng = random.Random(7)
    finished = []
    for _ in range(limit):
        deal, state = await db(current, table)
        if deal.finished_at is not None:
            await bot_player.step(timeout=0.1)
            if deal.pk not in finished:
                finished.append(deal.pk)
            if len(finished) >= deals:
                return finished
            await db(timers.run)
            continue
        humans_to_act = [s for s in state.to_act if s in humans]
        if humans_to_act:
            await db(act, table, humans, rng, humans_to_act[0])
        elif 3 in state.to_act:
            await db(timers.run)
        else:
            # The bot's turn: its act message follows the step's commit.
            for _wait in range(40):
                if await bot_player.step(timeout=0.05):
                    break
            else:
                raise AssertionError(f"the bot was not asked at step {state.step}: {bot_player.received[-3:]}")
            await wait_for_step_after(table, deal.pk, state.step)
    raise AssertionError("the deals did not finish")


async def test_a_protocol_bot_plays_whole_deals_with_two_people_and_a_built_in_bot(make_user, make_table, make_bot, timers):
    table, humans, bot, communicator = await friend_table_with_bot(make_user, make_table, make_bot)
    player = ProtocolBot(communicator, seed=3)
    finished = await play(table, humans, player, timers, deals=DEALS)
    assert len(finished) == DEALS
    await player.step(timeout=1.0)  # the deal's last messages, on a slow machine
    stages = [(m["type"], m.get("stage")) for m in player.received]
    assert stages.count(("notify", "beginning")) >= DEALS
    assert stages.count(("notify", "episodeOver")) == DEALS
    assert ("act", "play") in stages
    # The bot's own moves are in the log as its seat's player's (a person's) actions.
    own = await db(lambda: list(Action.objects.filter(deal_id__in=finished, seat=2).values_list("actor", "user_id")))
    assert own and {user for actor, user in own if actor == "human"} == {bot.user_id}
    # Every act the bot answered was legal: the log has no refusal and no timeout.
    assert not [m for m in player.received if m.get("type") == "error"]
    assert all(actor == "human" for actor, _ in own)
    await communicator.disconnect()


async def test_every_act_lists_the_hand_and_the_plays_the_engine_allows(make_user, make_table, make_bot, timers):
    table, humans, bot, communicator = await friend_table_with_bot(make_user, make_table, make_bot)
    received = await messages(communicator)
    assert received[0] == {"type": "notify", "stage": "beginning", "myPos": 2,
                           "handCards": received[0]["handCards"]}
    assert len(received[0]["handCards"]) == 27
    deal, state = await db(current, table)
    assert sorted(received[0]["handCards"]) == sorted(
        __import__("games.bots.protocol", fromlist=["codes_of"]).codes_of(state.hands[2]))
    await communicator.disconnect()


async def test_junk_and_bad_indexes_are_refused_naming_the_rule_and_change_nothing(make_user, make_table, make_bot, timers):
    table, humans, bot, communicator = await friend_table_with_bot(make_user, make_table, make_bot)
    player = ProtocolBot(communicator)
    rng = random.Random(1)
    # Bring the deal to the bot's turn.
    for _ in range(200):
        player.received += await messages(communicator, timeout=0.05)
        deal, state = await db(current, table)
        if 2 in state.to_act:
            break
        seat = state.to_act[0]
        if seat in humans:
            await db(act, table, humans, rng, seat)
        else:
            await db(timers.run)
    player.received += await messages(communicator)
    acts = [m for m in player.received if m.get("type") == "act"]
    assert acts, "the bot was never asked to act"
    last = acts[-1]
    before = await db(lambda: (live_selectors.current_deal(table).seq, Action.objects.count()))
    for junk in ["not json", "[1, 2]", json.dumps({"actIndex": -1}), json.dumps({"actIndex": "0"}),
                 json.dumps({"actIndex": 1.5}), json.dumps({"actIndex": True}),
                 json.dumps({"actIndex": last["indexRange"] + 1}), json.dumps({"other": 0}), "x" * 1000]:
        await communicator.send_to(text_data=junk)
        answer = json.loads(await communicator.receive_from(timeout=5))
        assert answer["type"] == "error" and answer["rule"] == "R9.1", (junk, answer)
        assert "R9.1" not in answer["message"] or answer["message"]
    assert await db(lambda: (live_selectors.current_deal(table).seq, Action.objects.count())) == before
    # A valid answer after all that still plays.
    await communicator.send_to(text_data=json.dumps({"actIndex": 0}))
    after = await messages(communicator)
    assert not [m for m in after if m.get("type") == "error"]
    assert await db(lambda: live_selectors.current_deal(table).seq) == before[0] + 1
    await communicator.disconnect()


async def test_a_bot_that_does_not_answer_times_out_and_goes_on_autopilot(make_user, make_table, make_bot, timers):
    from ..live.conftest import expire

    table, humans, bot, communicator = await friend_table_with_bot(make_user, make_table, make_bot)
    rng = random.Random(2)
    timeouts = 0
    for _ in range(600):
        deal, state = await db(current, table)
        if deal.finished_at is not None or state.autopilot[2]:
            break
        seat = state.to_act[0]
        if seat in humans:
            await db(act, table, humans, rng, seat)
        elif seat == 3:
            await db(timers.run)
        else:
            await db(expire, deal)
            await db(timers.run)
            timeouts += 1
    deal, state = await db(current, table)
    assert state.autopilot[2], "two timeouts in a row put the bot's seat on autopilot (R9.2)"
    actors = await db(lambda: list(Action.objects.filter(deal=deal, seat=2).values_list("actor", flat=True)))
    assert actors[:2] == ["timeout", "timeout"]
    # A late answer is refused as such.
    received = await messages(communicator)
    acts = [m for m in received if m.get("type") == "act"]
    await communicator.disconnect()
    assert acts


async def test_a_revoked_or_unknown_token_is_refused(make_user, make_table, make_bot):
    from accounts import bots

    owner = await db(make_user)
    table = await db(make_table, owner, kind="friend")
    bot, token = await db(make_bot, owner)
    communicator, connected = await connect_bot("nonsense", table.pk, 2, table.invite_code)
    answer = json.loads(await communicator.receive_from(timeout=5))
    assert answer["type"] == "error" and "token" in answer["message"]
    assert (await communicator.receive_output(timeout=5))["type"] == "websocket.close"
    await db(bots.revoke_bot, owner=owner, bot_id=bot.pk)
    communicator, connected = await connect_bot(token, table.pk, 2, table.invite_code)
    answer = json.loads(await communicator.receive_from(timeout=5))
    assert answer["type"] == "error" and "token" in answer["message"]
    assert not await db(lambda: Seat.objects.filter(user=bot.user).exists())


async def test_the_token_comes_in_the_header_never_in_the_url(make_user, make_table, make_bot):
    owner = await db(make_user)
    table = await db(make_table, owner, kind="friend")
    bot, token = await db(make_bot, owner)
    communicator, _ = await connect_bot(token, table.pk, 2, table.invite_code, in_url=True, errors=False)
    before, (code, reason) = await closed_with(communicator)
    assert before == [] and code == 4401 and "Authorization header" in reason
    assert not await db(lambda: Seat.objects.filter(user=bot.user).exists())
    communicator, connected = await connect_bot(token, table.pk, 2, table.invite_code)
    assert connected
    assert await communicator.receive_nothing(timeout=0.3)  # seated; no deal yet, nothing to say
    assert await db(lambda: Seat.objects.get(user=bot.user).position) == 1
    await communicator.disconnect()


async def test_a_friend_table_needs_the_invitation_and_match_tables_refuse_bots(make_user, make_table, make_bot):
    owner, other = await db(make_user), await db(make_user)
    friend_table = await db(make_table, owner, kind="friend")
    match_table = await db(make_table, other, kind="match")
    bot, token = await db(make_bot, owner)
    communicator, _ = await connect_bot(token, friend_table.pk, 2, "WRONGCODE")
    answer = json.loads(await communicator.receive_from(timeout=5))
    assert answer["type"] == "error" and answer["message"].startswith("R10.3")
    communicator, _ = await connect_bot(token, match_table.pk, 2)
    answer = json.loads(await communicator.receive_from(timeout=5))
    assert answer["type"] == "error" and answer["message"].startswith("R10.1")
    assert not await db(lambda: Seat.objects.filter(user=bot.user).exists())
    # The seating service itself refuses, whoever calls it (R10.1).
    from games.tables.policies import TableError

    with pytest.raises(TableError, match="R10.1"):
        await db(services.take_seat, table=match_table, user=bot.user, position=2)


async def test_a_bot_replaces_a_built_in_bot_at_its_owners_practice_table(make_user, make_table, make_bot, timers):
    owner = await db(make_user)
    table = await db(make_table, owner, kind="practice")
    await db(services.start_match, table=table, user=owner)
    bot, token = await db(make_bot, owner)
    communicator, connected = await connect_bot(token, table.pk, 3)
    assert connected
    seat = await db(lambda: Seat.objects.get(table=table, position=2))
    assert seat.user_id == bot.user_id and not seat.is_bot
    received = await messages(communicator)
    assert received[0]["stage"] == "beginning" and received[0]["myPos"] == 2
    await communicator.disconnect()
    # Someone else's bot may not take a seat there (R10.4).
    stranger = await db(make_user)
    other, other_token = await db(make_bot, stranger, "Other")
    communicator, _ = await connect_bot(other_token, table.pk, 4)
    answer = json.loads(await communicator.receive_from(timeout=5))
    assert answer["type"] == "error" and answer["message"].startswith("R10.4")
