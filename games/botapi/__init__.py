"""The bot endpoint: bot accounts play a seat in the Guandan AI competition protocol.

- ``messages``: one seat's view (``engine.views.view_for``) as the protocol's ``notify``
  and ``act`` messages, and an answer's ``actIndex`` back to the engine action.
- ``consumer``: the WebSocket (``ws/bot/``, routed in ``games/routing.py``): the token,
  the seat, the messages out and the answers in, through the door.

The protocol is described in docs/bot-protocol.md; its vocabulary (card codes, action
entries and their order) lives in ``games.bots.protocol``, which the client for the other
direction (``games.bots.client``) shares.
"""
