"""The bot endpoint as the competition's own client programs meet it: nothing but the
protocol's messages unless a program asks for error messages; refusals before the seat
is taken as a close code and reason; a disconnected program's seat played by the site at
once until it is back; the seat asked for on a reconnect; a program joining mid-deal
told the deal from its beginning; single-use tickets; rotated tokens; one connection a
seat."""

import asyncio
import json
import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games.botapi import tickets
from games.bots import protocol
from games.live import door
from games.live.render import scene_for
from games.models import Action, BotTicket, Seat
from games.tables import services

from ..live.helpers import act, current
from .conftest import closed_with, connect_bot, db, messages

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]
PROTOCOL_TYPES = {"notify", "act"}
PROTOCOL_STAGES = {"beginning", "play", "tribute", "anti-tribute", "back", "episodeOver"}


async def practice_with_bot(make_user, make_table, make_bot, *, seat=3, errors=False):
    owner = await db(make_user)
    table = await db(make_table, owner, kind="practice")
    await db(services.start_match, table=table, user=owner)
    bot, token = await db(make_bot, owner)
    communicator, connected = await connect_bot(token, table.pk, seat, errors=errors)
    assert connected
    return owner, table, bot, token, communicator


async def bring_turn_to(table, owner, timers, seat, rng):
    """Play (the owner by the door, the built-in bots by their timers) until ``seat`` acts."""
    for _ in range(400):
        deal, state = await db(current, table)
        if seat in state.to_act:
            return deal, state
        if 0 in state.to_act:
            await db(act, table, {0: owner}, rng, 0)
        else:
            await db(timers.run, rounds=1)
    raise AssertionError("the turn never came")


async def test_a_program_that_did_not_ask_hears_only_the_protocols_messages(make_user, make_table, make_bot, timers):
    owner, table, bot, token, communicator = await practice_with_bot(make_user, make_table, make_bot)
    rng = random.Random(3)
    received = list(await messages(communicator))
    await bring_turn_to(table, owner, timers, 2, rng)
    received += await messages(communicator)
    last = [m for m in received if m["type"] == "act"][-1]
    before = await db(lambda: Action.objects.count())
    # Junk, bad indexes, an answer with nothing to answer: no error message, nothing played.
    for junk in ["not json", "[1]", json.dumps({"actIndex": -1}), json.dumps({"actIndex": last["indexRange"] + 1}),
                 json.dumps({"actIndex": True}), "x" * 1000]:
        await communicator.send_to(text_data=junk)
    received += await messages(communicator)
    assert await db(lambda: Action.objects.count()) == before
    # A valid answer still plays, and the deal goes on with every message a protocol one.
    await communicator.send_to(text_data=json.dumps({"actIndex": 0}))
    await communicator.send_to(text_data=json.dumps({"actIndex": 0}))  # nothing to answer now: dropped
    received += await messages(communicator)
    assert await db(lambda: Action.objects.count()) == before + 1
    assert {m["type"] for m in received} <= PROTOCOL_TYPES
    assert {m["stage"] for m in received} <= PROTOCOL_STAGES | {"play", "tribute", "back"}
    await communicator.disconnect()


async def test_refusals_before_the_seat_is_a_close_code_and_reason(make_user, make_table, make_bot):
    owner, other = await db(make_user), await db(make_user)
    match_table = await db(make_table, other, kind="match")
    friend = await db(make_table, owner, kind="friend")
    bot, token = await db(make_bot, owner)
    communicator, _ = await connect_bot("nonsense", friend.pk, 2, friend.invite_code, errors=False)
    before, (code, reason) = await closed_with(communicator)
    assert before == [] and code == 4401 and "token" in reason
    communicator, _ = await connect_bot(token, match_table.pk, 2, errors=False)
    before, (code, reason) = await closed_with(communicator)
    assert before == [] and code == 4403 and reason.startswith("R10.1")
    communicator, _ = await connect_bot(token, friend.pk, 2, "WRONGCODE", errors=False)
    before, (code, reason) = await closed_with(communicator)
    assert before == [] and code == 4403 and reason.startswith("R10.3")
    # Asked for, the refusal is told as an error message first, then the same close.
    communicator, _ = await connect_bot(token, match_table.pk, 2, errors=True)
    before, (code, reason) = await closed_with(communicator)
    assert [m["type"] for m in before] == ["error"] and before[0]["rule"] == "R10.1" and code == 4403
    assert not await db(lambda: Seat.objects.filter(user=bot.user).exists())


async def test_a_disconnected_programs_seat_is_played_at_once_until_it_is_back(make_user, make_table, make_bot, timers):
    owner, table, bot, token, communicator = await practice_with_bot(make_user, make_table, make_bot)
    rng = random.Random(4)
    deal, state = await bring_turn_to(table, owner, timers, 2, rng)
    await messages(communicator)
    await communicator.disconnect()
    seat = await db(lambda: Seat.objects.get(table=table, position=2))
    assert seat.auto_play is not None, "gone: the site plays the seat (auto play at the table's pace)"
    scene = await db(scene_for, table)
    assert scene.seats[2].autopilot, "the table shows the seat on autopilot"
    # Its turn is played by the site's own timer, without waiting for the think time.
    assert "table_turn" in timers.names(), timers.names()
    await db(timers.run)
    actors = await db(lambda: list(Action.objects.filter(deal=deal, seat=2).values_list("actor", flat=True)))
    assert actors[-1] == "bot"
    # Back: the program plays again, and is first told the deal from its beginning.
    communicator, connected = await connect_bot(token, table.pk, 3)
    assert connected
    assert await db(lambda: Seat.objects.get(table=table, position=2).auto_play) is None
    received = await messages(communicator)
    assert received[0]["stage"] == "beginning" and len(received[0]["handCards"]) == 27
    await communicator.disconnect()


async def test_a_reconnect_asks_for_the_seat_it_holds(make_user, make_table, make_bot, timers):
    owner, table, bot, token, communicator = await practice_with_bot(make_user, make_table, make_bot)
    await messages(communicator)
    await communicator.disconnect()
    communicator, _ = await connect_bot(token, table.pk, 4, errors=False)
    before, (code, reason) = await closed_with(communicator)
    assert code == 4403 and reason.startswith("R10.5") and "seat 3" in reason
    assert await db(lambda: Seat.objects.get(user=bot.user).position) == 2


async def test_a_bot_may_change_seats_while_a_friend_table_waits(make_user, make_table, make_bot):
    owner = await db(make_user)
    table = await db(make_table, owner, kind="friend")
    bot, token = await db(make_bot, owner)
    communicator, connected = await connect_bot(token, table.pk, 2, table.invite_code)
    assert connected
    await communicator.disconnect()
    communicator, connected = await connect_bot(token, table.pk, 4, table.invite_code)
    assert connected and await db(lambda: Seat.objects.get(user=bot.user).position) == 3  # R10.5
    await communicator.disconnect()


async def test_joining_mid_deal_tells_the_dealt_hand_then_everything_since(make_user, make_table, make_bot, timers):
    owner = await db(make_user)
    table = await db(make_table, owner, kind="practice")
    await db(services.start_match, table=table, user=owner)
    rng = random.Random(5)
    for _ in range(12):  # a few moves before the bot comes
        deal, state = await db(current, table)
        if 0 in state.to_act:
            await db(act, table, {0: owner}, rng, 0)
        else:
            await db(timers.run, rounds=1)
    bot, token = await db(make_bot, owner)
    communicator, connected = await connect_bot(token, table.pk, 2)
    assert connected
    received = await messages(communicator)
    deal, state = await db(current, table)
    beginning = received[0]
    assert beginning["stage"] == "beginning"
    assert sorted(beginning["handCards"]) == sorted(protocol.codes_of(deal.hands[1]))
    # Counting down its own plays from the dealt hand gives the hand it holds.
    hand = list(beginning["handCards"])
    for message in received[1:]:
        if message.get("stage") == "play" and message["curPos"] == 1 and message["curAction"][0] != "PASS":
            for code in message["curAction"][2]:
                hand.remove(code)
    assert sorted(hand) == sorted(protocol.codes_of(state.hands[1]))
    await communicator.disconnect()


async def test_a_ticket_opens_one_connection_for_the_chosen_seat(make_user, make_table, make_bot, timers):
    owner = await db(make_user)
    table = await db(make_table, owner, kind="practice")
    await db(services.start_match, table=table, user=owner)
    bot, token = await db(make_bot, owner)
    issued = await db(tickets.issue_ticket, owner=owner, bot_id=bot.pk, table_id=table.pk, position=3)
    assert await db(lambda: BotTicket.objects.get().ticket_hash) != issued.secret  # stored hashed
    communicator, connected = await connect_bot(ticket=issued.secret, errors=False)
    assert connected
    assert (await messages(communicator))[0]["myPos"] == 3
    await communicator.disconnect()
    communicator, _ = await connect_bot(ticket=issued.secret, errors=False)
    _before, (code, reason) = await closed_with(communicator)
    assert code == 4401 and "ticket" in reason
    # Expired after ten minutes.
    late = await db(tickets.issue_ticket, owner=owner, bot_id=bot.pk, table_id=table.pk, position=3)
    await db(lambda: BotTicket.objects.filter(pk=late.ticket.pk).update(expires_at=timezone.now() - timedelta(seconds=1)))
    communicator, _ = await connect_bot(ticket=late.secret, errors=False)
    assert (await closed_with(communicator))[1][0] == 4401


async def test_rotating_the_token_closes_the_bots_connections(make_user, make_table, make_bot, timers):
    from accounts import bots

    owner, table, bot, token, communicator = await practice_with_bot(make_user, make_table, make_bot)
    await messages(communicator)
    pending = await db(tickets.issue_ticket, owner=owner, bot_id=bot.pk, table_id=table.pk, position=2)
    rotated = await db(bots.rotate_token, owner=owner, bot_id=bot.pk)
    assert rotated.token != token
    _before, (code, reason) = await closed_with(communicator)
    assert code == 4401 and "rotated" in reason
    assert not await db(lambda: BotTicket.objects.filter(pk=pending.ticket.pk).exists())
    communicator, _ = await connect_bot(token, table.pk, 3, errors=False)
    assert (await closed_with(communicator))[1][0] == 4401  # the old token no longer connects
    communicator, connected = await connect_bot(rotated.token, table.pk, 3)
    assert connected
    await communicator.disconnect()


async def test_a_new_connection_replaces_the_old_one(make_user, make_table, make_bot, timers):
    owner, table, bot, token, first = await practice_with_bot(make_user, make_table, make_bot)
    await messages(first)
    second, connected = await connect_bot(token, table.pk, 3)
    assert connected
    _before, (code, _reason) = await closed_with(first)
    assert code == 4409
    await asyncio.sleep(0.1)
    assert await db(lambda: Seat.objects.get(user=bot.user).auto_play) is None, "the seat stays the program's"
    await second.disconnect()


async def test_the_door_plays_an_away_programs_seat_at_the_tables_pace(make_user, make_table, make_bot, timers):
    owner, table, bot, token, communicator = await practice_with_bot(make_user, make_table, make_bot)
    await communicator.disconnect()
    assert not await db(door.bot_program_connected, table=table, user=bot.user, connected=False), "already away"
    assert await db(door.bot_program_connected, table=table, user=bot.user, connected=True)
    assert not await db(door.bot_program_connected, table=table, user=owner.__class__(pk=10 ** 9), connected=True)
