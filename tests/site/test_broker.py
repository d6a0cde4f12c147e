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
