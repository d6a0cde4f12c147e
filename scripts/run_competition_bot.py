#!/usr/bin/env python
"""Run one of the published Guandan AI competition bots, as published, as a protocol client.

    .venv/bin/python scripts/run_competition_bot.py /tmp/danlm/baselines/1st-lalala ws://127.0.0.1:23456/game/client2

The bots (``baselines/`` of the public repository dashidhy/DanLM) are kept outside this
repository; nothing of theirs is copied here. This is only the glue their competition
client provided: it imports the bot's own ``state.State`` and ``action.Action`` from its
folder, passes every message to ``State.parse`` and answers each message holding an
``actionList`` with the bot's choice (``Action.rule_parse`` for the bots that have it,
else ``Action.parse(message, myPos, rests)`` as njupt-guandan-ai's own client calls it),
over the ``websockets`` library instead of ws4py. The bots' prints are discarded; an
exception inside a bot is reported on stderr and answered with -1 (the server then counts
a timeout).
"""

import contextlib
import inspect
import io
import json
import os
import sys


def main() -> int:
    bot_dir, url = sys.argv[1], sys.argv[2]
    sys.path.insert(0, bot_dir)
    os.chdir(bot_dir)
    from action import Action
    from state import State
    from websockets.sync.client import connect

    def make(cls):
        return cls("client") if len(inspect.signature(cls.__init__).parameters) > 1 else cls()

    state, action = make(State), make(Action)

    def choose(message):
        if hasattr(action, "rule_parse"):
            return action.rule_parse(message, state._myPos, state.remain_cards, state.history,
                                     state.remain_cards_classbynum, state.pass_num, state.my_pass_num,
                                     state.tribute_result)
        return action.parse(message, state._myPos, [info["rest"] for info in message["publicInfo"]])

    sink = io.StringIO()
    with connect(url, max_size=2 ** 24, open_timeout=60) as socket:
        while True:
            try:
                message = json.loads(socket.recv())
            except Exception:  # the server closed the connection
                break
            index = None
            with contextlib.redirect_stdout(sink):
                try:
                    state.parse(message)
                except Exception as error:
                    print("state error", repr(error), file=sys.stderr)
                if "actionList" in message:
                    try:
                        index = choose(message)
                    except Exception as error:
                        print("bot error", repr(error), file=sys.stderr)
                        index = -1
            sink.seek(0)
            sink.truncate()
            if index is not None:
                socket.send(json.dumps({"actIndex": index}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
