"""The site's WebSockets are compressed (permessage-deflate) under Daphne when the client
offers it, as every current browser does; a step's fragments cross the wire in a
fraction of their size."""

import asyncio
import zlib

import pytest
from autobahn.websocket.compress import PerMessageDeflateOffer
from websockets.asyncio.client import ClientConnection, connect

from guandan_site import websocket_compression

# With the browser tests: this folder's fixtures serve the site (and, with REDIS_URL, start
# a Celery worker), which the PostgreSQL lane leaves to the embedded one.
pytestmark = pytest.mark.browser


class CountingConnection(ClientConnection):
    """Counts the bytes that arrive on the socket, frames and compression included."""

    received = 0

    def data_received(self, data: bytes) -> None:
        CountingConnection.received += len(data)
        super().data_received(data)


def test_a_browsers_offer_is_accepted_with_a_small_window():
    offer = PerMessageDeflateOffer.parse({"client_max_window_bits": [True]})
    accepted = websocket_compression.accept([offer])
    assert accepted is not None
    header = accepted.get_extension_string()
    assert "permessage-deflate" in header
    assert "client_max_window_bits=9" in header and "client_no_context_takeover" in header
    # The server's own window and memory (not in the header: the browser's decompressor
    # reads any window up to the largest).
    assert (accepted.window_bits, accepted.mem_level) == (11, 5)
    assert websocket_compression.accept([]) is None


def test_the_served_lobby_socket_is_compressed(site_url):
    async def lobby(compression):
        CountingConnection.received = 0
        url = site_url.replace("http://", "ws://") + "/ws/lobby/"
        async with connect(url, origin=site_url, compression=compression, create_connection=CountingConnection,
                           proxy=None) as ws:
            html = await asyncio.wait_for(ws.recv(), timeout=10)
            return ws.response.headers.get("Sec-WebSocket-Extensions", ""), html, CountingConnection.received

    extensions, html, wire = asyncio.run(lobby("deflate"))
    assert "permessage-deflate" in extensions
    assert 'id="lobby-tables"' in html
    plain_extensions, plain_html, plain_wire = asyncio.run(lobby(None))
    assert plain_extensions == "" and plain_html == html
    # Compressed, the lobby crosses the wire in well under half its size.
    assert wire < plain_wire / 2, (wire, plain_wire, len(zlib.compress(html.encode())))
