"""The broker's transport (guandan_site/broker.py): a message acknowledged on a channel
that was closed with its lost connection fails as a connection error, which Celery logs
and survives, never as the ``AttributeError`` that ended the worker."""

import logging
import os
import uuid

import pytest
from kombu import Connection, Exchange, Producer, Queue

pytestmark = pytest.mark.celery


@pytest.fixture
def connection():
    with Connection(os.environ["REDIS_URL"], transport="guandan_site.broker:Transport") as made:
        yield made


def test_an_ack_on_a_channel_closed_with_its_connection_is_a_connection_error(connection, caplog):
    name = f"broker-test-{uuid.uuid4().hex}"
    channel = connection.channel()
    queue = Queue(name, Exchange(name), name, channel=channel, auto_delete=True)
    queue.declare()
    Producer(channel).publish({"timer": 1}, exchange=queue.exchange, routing_key=name)
    message = queue.get(no_ack=False)
    assert message is not None
    channel.close()  # what the worker does to the channel of a lost connection

    with pytest.raises(connection.connection_errors):
        message.ack()
    # Celery acknowledges through ack_log_error with the connection's errors: logged, not raised.
    with caplog.at_level(logging.CRITICAL):
        message.ack_log_error(logging.getLogger("celery.worker.request"), connection.connection_errors)
    assert "closed with its connection" in caplog.text


def test_the_worker_uses_the_transport_and_consumer_that_survive_redis(settings):
    from guandan_site.celery import app

    assert app.conf.broker_transport == "guandan_site.broker:Transport"
    assert app.conf.worker_consumer == "guandan_site.broker:Consumer"


def test_a_subscription_with_nothing_to_read_does_not_hold_the_consumer(connection):
    """The consumer reads the broadcast subscription when its socket polls readable. A
    read that finds nothing there (the poll's news was of a socket since replaced, or was
    used up) must end within about a second: redis-py 8 lets a blocking read of a
    subscription wait without end, and the worker's consumer stood still for good."""
    import threading

    name = f"broker-fanout-{uuid.uuid4().hex}"
    channel = connection.channel()
    queue = Queue(name, Exchange(name, type="fanout"), channel=channel, auto_delete=True)
    queue.declare()
    channel.active_fanout_queues.add(name)
    channel._fanout_to_queue[name] = name
    connection.transport.cycle._register_LISTEN(channel)  # subscribed, as the consumer's poller does
    ended = []

    def read():
        ended.append(channel._receive())

    for expected in (False, False):  # the subscription's confirmation, then nothing at all
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(timeout=10)
        assert ended and ended.pop() is expected, "the subscription's read waited for a message"
    # A broadcast still arrives.
    Producer(channel).publish({"broadcast": 1}, exchange=queue.exchange)
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=10)
    assert ended == [True]
