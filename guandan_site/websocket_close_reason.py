"""Close reasons on the site's sockets under Daphne.

An ASGI application closes a WebSocket with ``{"type": "websocket.close", "code": ...,
"reason": ...}``, but Daphne sends the close frame with the code alone. The bot endpoint
refuses a connection by its close code and a reason naming the rule (a competition
client knows no error message, docs/bot-protocol.md), so the reason must reach the
program: ``enable()`` makes Daphne's WebSocket protocol send it (RFC 6455 allows 123
bytes of UTF-8). The ASGI module calls it at import, before Daphne builds its factory.
"""

from __future__ import annotations


def enable() -> bool:
    """Make Daphne send the reason of a server-side close; False without Daphne.
    Idempotent."""
    try:
        from daphne import ws_protocol
    except ImportError:  # served by another ASGI server: it decides for itself
        return False
    base = ws_protocol.WebSocketFactory.protocol
    if getattr(base, "sends_close_reasons", False):
        return True

    class WebSocketProtocol(base):
        sends_close_reasons = True

        def handle_reply(self, message):
            if (message.get("type") == "websocket.close" and message.get("reason")
                    and self.state != self.STATE_CONNECTING):
                self.sendClose(code=message.get("code") or 1000, reason=message["reason"])
                return
            super().handle_reply(message)

    ws_protocol.WebSocketFactory.protocol = WebSocketProtocol
    return True
