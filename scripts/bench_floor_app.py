"""The floor for the realtime benchmark: the bare Channels stack, no database.

    FLOOR_REDIS_URL=redis://127.0.0.1:6379/13 FLOOR_BYTES=8400 \\
        PYTHONPATH=scripts .venv/bin/daphne -p 8201 bench_floor_app:application

A table's pages connect to ``/floor/<table>/?seat=<0-3>`` (no seat: a watcher). Each
action a page sends (``{"action", "deal", "seq"}``) is answered as the site answers one,
without the site's work: one ``group_send`` on the same channel layer (Redis pub/sub)
to the table's group, and every page of the table, in whichever daphne process it is,
renders a fragment of ``FLOOR_BYTES`` bytes through a Django template (the same
``data-seq``/``data-deal`` markers and "your turn" marker the site's fragments carry, so
the benchmark's players drive it unchanged) and sends it. The seat to act at step ``n``
is ``n % 4``. ``scripts/bench_live.py --floor`` starts it beside the site and reports
both, and their ratio, from the same run.
"""

from __future__ import annotations

import json
import os
from urllib.parse import parse_qs

import django
from django.conf import settings

if not settings.configured:
    settings.configure(
        DEBUG=False,
        INSTALLED_APPS=["channels"],
        ALLOWED_HOSTS=["*"],
        TEMPLATES=[{"BACKEND": "django.template.backends.django.DjangoTemplates", "DIRS": [], "OPTIONS": {}}],
        CHANNEL_LAYERS={
            "default": {
                "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
                "CONFIG": {"hosts": [{"address": os.environ.get("FLOOR_REDIS_URL", "redis://127.0.0.1:6379/13"),
                                      "socket_timeout": 15}]},
            }
        },
    )
    django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.template import engines  # noqa: E402
from django.urls import path  # noqa: E402

FRAGMENT_BYTES = int(os.environ.get("FLOOR_BYTES", "8400"))

# What a page of the site carries (the markers the benchmark reads), drawn as the site
# draws it: the public part (a run of small cards, padded to FRAGMENT_BYTES) once per step
# by the process that takes the action, carried in the event; each page's own small part
# (its status line, "your turn" or not) by its own consumer.
_PUBLIC = engines["django"].from_string(
    '<section id="tbl-seats" data-seq="{{ seq }}" data-deal="{{ deal }}">'
    '{% for card in cards %}<span class="card c{{ card }}" data-card="{{ card }}">{{ card }}</span>{% endfor %}'
    "</section>"
)
_PRIVATE = engines["django"].from_string(
    '<div id="tbl-status" class="play-status" data-seq="{{ seq }}" data-deal="{{ deal }}">'
    '<p class="turn{% if mine %} is-mine{% endif %}">{{ turn }}</p></div>'
)
_CARD_BYTES = len('<span class="card c50" data-card="50">50</span>')
CARDS = [50] * max(0, (FRAGMENT_BYTES - 220) // _CARD_BYTES)


def public_part(deal: int, seq: int) -> str:
    return _PUBLIC.render({"deal": deal, "seq": seq, "cards": CARDS})


class FloorConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        self.table = int(self.scope["url_route"]["kwargs"]["table"])
        seat = parse_qs(self.scope["query_string"].decode()).get("seat", [""])[0]
        self.seat = int(seat) if seat.isdigit() else None
        self.group = f"floor-{self.table}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send(text_data=public_part(1, 0) + self.private_part(1, 0))

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        data = json.loads(text_data)
        deal, seq = int(data["deal"]), int(data["seq"]) + 1
        await self.channel_layer.group_send(
            self.group, {"type": "floor.step", "deal": deal, "seq": seq, "public": public_part(deal, seq)}
        )

    async def floor_step(self, event):
        await self.send(text_data=event["public"] + self.private_part(event["deal"], event["seq"]))

    def private_part(self, deal: int, seq: int) -> str:
        mine = self.seat is not None and self.seat == seq % 4
        return _PRIVATE.render({"deal": deal, "seq": seq, "mine": mine,
                                "turn": "Your turn" if mine else f"Seat {seq % 4 + 1} to play"})


application = ProtocolTypeRouter(
    {"websocket": URLRouter([path("floor/<int:table>/", FloorConsumer.as_asgi())])}
)
