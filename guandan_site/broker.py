"""The Celery broker's transport: kombu's Redis transport, made to survive losing Redis.

When the connection to Redis drops while the worker holds unacknowledged messages (every
pending timer is one: they carry a countdown and ``acks_late``), kombu closes the channel
and restores those messages first; the restore reconnects through the transport's
client, which is already gone, and the ``AttributeError`` it raises ("'NoneType' object
has no attribute 'hostname'") ends the worker for good: bot turns, timeouts and next
deals stop until someone restarts it.

Here the channel does not restore at close. Nothing is lost by it: the timers are
idempotent and the sweep (Celery beat, every few seconds) re-arms any that is overdue,
and messages still in Redis's unacknowledged set come back after its visibility timeout.
Selected by ``CELERY_BROKER_TRANSPORT`` whenever the broker is Redis
(``tests/live/test_process_faults.py`` kills and restarts a real Redis under a worker).
"""

from kombu.transport import redis


class Channel(redis.Channel):
    do_restore = False


class Transport(redis.Transport):
    Channel = Channel
