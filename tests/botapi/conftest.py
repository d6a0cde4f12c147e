"""Fixtures for the bot endpoint: bot accounts, and a protocol-compatible test bot."""

import json
import random

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator


@pytest.fixture
def make_bot(settings):
    """``make_bot(owner, name="Testbot") -> (bot, token)``: an approved bot account."""
    from accounts import bots

    settings.GUANDAN_BOTS_AUTO_APPROVE = True

    def make(owner, name="Testbot"):
        new = bots.create_bot(owner=owner, name=name)
        return new.bot, new.token

    return make


async def connect_bot(token=None, table=None, seat=None, code=None, *, errors=True, ticket=None, in_url=False):
    """Open the bot endpoint as a bot program would (no Origin, no cookie): the token in
    the Authorization header (``in_url`` puts it in the URL instead, which is refused),
    or a ``ticket``; ``errors`` asks for error messages. Returns the communicator and
    whether the connection was accepted."""
    from guandan_site.asgi import application

    query = []
    if token and in_url:
        query.append(f"token={token}")
    if ticket is not None:
        query.append(f"ticket={ticket}")
    if table is not None:
        query.append(f"table={table}")
    if seat is not None:
        query.append(f"seat={seat}")
    if code is not None:
        query.append(f"code={code}")
    if errors:
        query.append("errors=1")
    headers = [(b"authorization", f"Bearer {token}".encode())] if token and not in_url else []
    communicator = WebsocketCommunicator(application, "/ws/bot/?" + "&".join(query), headers=headers)
    connected, _ = await communicator.connect()
    return communicator, connected


async def closed_with(communicator, timeout=5):
    """The messages before the close, and the close's (code, reason)."""
    out = []
    while True:
        message = await communicator.receive_output(timeout=timeout)
        if message["type"] == "websocket.close":
            return out, (message.get("code"), message.get("reason", ""))
        out.append(json.loads(message["text"]))


async def messages(communicator, timeout=0.3):
    """Every message that arrives until the socket is quiet for ``timeout``."""
    out = []
    while not await communicator.receive_nothing(timeout=timeout):
        out.append(json.loads(await communicator.receive_from(timeout=5)))
    return out


class ProtocolBot:
    """A protocol-compatible test bot: it reads only the messages, answers every ``act``
    with a random ``actIndex`` in ``0..indexRange`` (passing 60% of the time it may), and
    keeps everything it received."""

    def __init__(self, communicator, seed=0):
        self.communicator = communicator
        self.rng = random.Random(seed)
        self.received: list[dict] = []

    async def step(self, timeout=0.3) -> int:
        """Read what arrived; answer each ``act``. Returns how many acts it answered."""
        answered = 0
        for message in await messages(self.communicator, timeout):
            self.received.append(message)
            if message.get("type") == "act":
                options = message["actionList"]
                if options[0][0] == "PASS" and self.rng.random() < 0.6:
                    index = 0
                else:
                    index = self.rng.randint(0, message["indexRange"])
                await self.communicator.send_to(text_data=json.dumps({"actIndex": index}))
                answered += 1
        return answered


@database_sync_to_async
def db(func, *args, **kwargs):
    return func(*args, **kwargs)
