"""WebSocket compression (permessage-deflate, RFC 7692) for the site's sockets under Daphne.

Daphne serves WebSockets with autobahn, which speaks permessage-deflate, but Daphne never
switches it on. ``enable()`` does, before Daphne builds its WebSocket factory (the ASGI
module, which Daphne imports first, calls it): every browser that offers the extension
(all current ones do) gets the table's fragments compressed.

The server keeps its compression context from one message to the next (each step's
regions look much like the last step's, so they compress to a fraction), with a small
window and memory level to keep the per-socket cost low: about 2^(11+2) + 2^(5+9) bytes
= 24 KB of zlib state per socket that has been sent a message. The browser is asked
not to keep its context (its messages are a few dozen bytes), so the server's
decompressor holds nothing between them. ``GUANDAN_WS_COMPRESSION=0`` turns it off.
"""

from __future__ import annotations

from autobahn.websocket.compress import (
    PerMessageDeflateOffer,
    PerMessageDeflateOfferAccept,
)

WINDOW_BITS = 11  # the server's sliding window: 2 KB, about one step's regions
MEM_LEVEL = 5
CLIENT_WINDOW_BITS = 9  # the smallest: the browser sends only short JSON


def accept(offers):
    """Accept the browser's permessage-deflate offer (None: no compression)."""
    for offer in offers:
        if not isinstance(offer, PerMessageDeflateOffer):
            continue
        window = WINDOW_BITS
        if offer.request_max_window_bits:
            window = min(window, offer.request_max_window_bits)
        return PerMessageDeflateOfferAccept(
            offer,
            request_no_context_takeover=bool(offer.accept_no_context_takeover),
            request_max_window_bits=CLIENT_WINDOW_BITS if offer.accept_max_window_bits else 0,
            window_bits=max(window, 9),
            mem_level=MEM_LEVEL,
        )
    return None


def enable() -> bool:
    """Make Daphne's WebSocket factory accept permessage-deflate; False without Daphne.
    Idempotent."""
    try:
        from daphne import server
    except ImportError:  # served by another ASGI server: it decides for itself
        return False
    base = server.WebSocketFactory
    if getattr(base, "compresses", False):
        return True

    class CompressingWebSocketFactory(base):
        compresses = True

        def setProtocolOptions(self, *args, **options):
            options.setdefault("perMessageCompressionAccept", accept)
            super().setProtocolOptions(*args, **options)

    server.WebSocketFactory = CompressingWebSocketFactory
    return True
