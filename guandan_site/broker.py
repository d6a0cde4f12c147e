"""The Celery broker's transport and the worker's consumer: made to survive losing Redis.

Two ways an outage of Redis used to end the worker for good, so that bot turns, timeouts
and next deals stopped until someone restarted it:

1. When the connection to Redis drops while the worker holds unacknowledged messages
   (every pending timer is one: they carry a countdown and ``acks_late``), kombu closes
   the channel and restores those messages first; the restore reconnects through the
   transport's client, which is already gone, and the ``AttributeError`` it raises
   ("'NoneType' object has no attribute 'hostname'") ends the worker. Here the channel
   does not restore at close. Nothing is lost by it: the timers are idempotent and the
   sweep re-arms any that is overdue, and messages still in Redis's unacknowledged set
   come back after its visibility timeout.
2. A task received on the old channel that finishes after the connection was lost (it
   was running, or its countdown came due, while the worker reconnected) is acknowledged
   on that closed channel. With nothing restored at close, the channel has neither a
   connection pool nor a connection to build one from, and the acknowledgement raised
   "'NoneType' object has no attribute 'client'", which Celery does not expect from an
   acknowledgement and which ended the worker ("Unrecoverable error"). Here a closed
   channel answers with the connection error Celery does expect: it logs that the
   message could not be acknowledged and goes on. The message stays in Redis's
   unacknowledged set and, after the visibility timeout, runs again as a timer whose
   table has moved on: it does nothing.

3. The subscription that carries the workers' broadcast commands (kombu's fanout) is read
   when its socket polls readable, with a blocking read, and redis-py 8 lets a blocking
   read of a subscription wait without end (it sets the socket's timeout aside). Once in
   about ten runs of the Redis-outage test under load, the consumer stood there for good
   after Redis came back, logging nothing (``py-spy dump``: the main thread in that read);
   the bots stopped. Here the subscription is read only when a message is there
   (``_SubscriptionRead``), within ``READ_WITHIN`` seconds.

The consumer (``Consumer``) reconnects every second while Redis is away, instead of
kombu's default back-off of up to 30 s between tries, and after every (re)connection
asks for a sweep without grace that re-arms every timer: whatever was due while Redis was
away (its timers went with Redis's memory, or with the old connection) moves at once, and
every table not due yet gets its timer again for its own time, so bots and timeouts go on
within about a second of Redis returning rather than at beat's next tick.

Selected by ``CELERY_BROKER_TRANSPORT`` and ``CELERY_WORKER_CONSUMER`` whenever the broker
is Redis (``tests/live/test_redis_outages.py`` kills and restarts a real Redis under a
worker again and again; ``tests/site/test_broker.py`` acknowledges on a closed channel and
reads a subscription with nothing there).
"""

from __future__ import annotations

import logging

from celery.worker.consumer import Consumer as CeleryConsumer
from kombu.transport import redis
from redis.exceptions import ConnectionError as RedisConnectionError

log = logging.getLogger(__name__)

RECONNECT_EVERY = 1.0  # seconds between tries while Redis is away
READ_WITHIN = 1.0  # seconds a readable subscription has to deliver its message whole


class _SubscriptionRead:
    """The channel's subscription client, whose ``parse_response`` returns what is there
    (None when nothing is) instead of waiting for a message (see 3. above)."""

    def __init__(self, client):
        self._client = client

    def __getattr__(self, name):
        return getattr(self._client, name)

    def parse_response(self, block=True, timeout=0):
        return self._client.parse_response(block=False, timeout=READ_WITHIN)


class Channel(redis.Channel):
    do_restore = False

    def _receive_one(self, c):
        return super()._receive_one(_SubscriptionRead(c))

    def _get_pool(self, asynchronous=False):
        if self.connection is None:
            raise RedisConnectionError("the broker channel was closed with its connection (Redis went away)")
        return super()._get_pool(asynchronous=asynchronous)


class Transport(redis.Transport):
    Channel = Channel


class _RetryEverySecond:
    """A kombu connection whose ``ensure_connection`` tries again every second."""

    def __init__(self, connection):
        self._connection = connection

    def __getattr__(self, name):
        return getattr(self._connection, name)

    def ensure_connection(self, *args, **kwargs):
        kwargs.update(interval_start=0, interval_step=RECONNECT_EVERY, interval_max=RECONNECT_EVERY)
        return self._connection.ensure_connection(*args, **kwargs)


class Consumer(CeleryConsumer):
    """Celery's consumer, reconnecting every second, sweeping once connected."""

    def ensure_connected(self, conn):
        return super().ensure_connected(_RetryEverySecond(conn))

    def connect(self):
        connection = super().connect()
        try:
            self.app.send_task("games.sweep", kwargs={"grace": 0.0, "rearm": True}, ignore_result=True)
        except Exception:  # the sweep from beat comes a few seconds later anyway
            log.warning("could not ask for a sweep after connecting to the broker", exc_info=True)
        return connection
