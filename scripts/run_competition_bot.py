#!/usr/bin/env python
"""Run one of the published Guandan AI competition bots, as published, as a protocol client.

    .venv/bin/python scripts/run_competition_bot.py /tmp/danlm/baselines/1st-lalala ws://127.0.0.1:23456/game/client2

The bots (``baselines/`` of the public repository dashidhy/DanLM) are kept outside this
repository; nothing of theirs is copied here. This is only the glue their competition
client provided, over the ``websockets`` library instead of ws4py. Given a bot's folder, it
finds the bot's code: the folder itself or the subfolder (e.g. ``3rd-chick-squad/幺鸡小分队``)
that holds ``state.py`` and ``action.py``, and imports the bot's own ``state.State`` and
``action.Action`` from there (their constructors take no argument, or a name / log file,
given "client"). Every message goes to ``State.parse``; each message holding an
``actionList`` is answered with the bot's choice, asked the way the bot's entry point
takes it:

- ``Action.rule_parse`` (1st-lalala, 2nd-flush-bomb, 3rd-hulalala; fin-honest-seu with
  its own argument list): the message, then the seat and the State's records, each
  argument taken from the State by its name;
- ``Action.GetIndexFromPlay`` / ``GetIndexFromBack`` (2nd-no-ai, whose ``State`` picks the
  move itself, in ``state.retValue``; ``Action.parse``, a random choice, for tribute);
- ``Action.parse_AI(message, myPos)`` (2nd-egg-pancake; its ``parse`` is random);
- else ``Action.parse(message, ...)``, the further arguments by their names: ``myPos`` /
  ``agent_pos`` the seat, ``mate_pos`` the partner's, ``rest`` how many cards each seat holds
  (njupt-guandan-ai), ``state`` the bot's State (fin-egg-expert, fin-guanglan-iot),
  ``restCards`` the hand and ``episode_rounds`` the deals so far (part-youre-right).

The bot runs in a fresh temporary working directory, so the files some bots write (logs;
3rd-ez and part-369 pass their seat from State to Action in ``data1.txt``) stay apart
between the two seats and out of the bots' folder. 3rd-chick-squad's ``action.py`` imports
``tsolve`` from a ``test`` module that was not published and never calls it: a stub
stands in. fin-honest-seu needs PyTorch (run it with a Python that has torch); the
egg-expert and guanglan-iot bots need numpy. The bots' prints are discarded; an exception
inside a bot is reported on stderr and answered with -1 (the server then counts a
timeout).
"""

import contextlib
import inspect
import io
import json
import os
import sys
import tempfile
import types
from pathlib import Path


def code_folder(bot_dir: Path) -> Path:
    """The folder itself, or its subfolder, that holds the bot's state.py and action.py."""
    for folder in [bot_dir, *sorted(p for p in bot_dir.iterdir() if p.is_dir())]:
        if (folder / "state.py").is_file() and (folder / "action.py").is_file():
            return folder
    raise SystemExit(f"no state.py and action.py in {bot_dir} or a folder inside it")


def make(cls):
    return cls("client") if len(inspect.signature(cls.__init__).parameters) > 1 else cls()


def main() -> int:
    bot_dir, url = Path(sys.argv[1]).resolve(), sys.argv[2]
    sys.path.insert(0, str(code_folder(bot_dir)))
    workdir = tempfile.TemporaryDirectory(prefix="competition-bot-")  # removed at exit
    os.chdir(workdir.name)
    stub = types.ModuleType("test")  # 3rd-chick-squad: `from test import tsolve`, unpublished, unused
    stub.tsolve = None
    sys.modules["test"] = stub
    from action import Action
    from state import State
    from websockets.sync.client import connect

    state, action = make(State), make(Action)
    seat, deals = None, 0  # kept here: some States (fin-caiji's) forget their myPos

    def choose(message):
        if hasattr(action, "rule_parse"):
            names = list(inspect.signature(action.rule_parse).parameters)[1:]
            renamed = {"remaincards": "remain_cards", "playcards": "play_cards"}
            return action.rule_parse(message, *[seat if name == "mypos" else getattr(state, renamed.get(name, name))
                                                for name in names])
        if hasattr(action, "GetIndexFromPlay"):
            if message["stage"] == "play":
                return action.GetIndexFromPlay(message, state.retValue)
            if message["stage"] == "back":
                return action.GetIndexFromBack(message, state.retValue)
            return action.parse(message)
        if hasattr(action, "parse_AI"):
            return action.parse_AI(message, seat)
        known = {"myPos": seat, "agent_pos": seat, "mate_pos": (seat + 2) % 4, "state": state,
                 "rest": [info["rest"] for info in message["publicInfo"]],
                 "restCards": message["handCards"], "episode_rounds": deals}
        names = list(inspect.signature(action.parse).parameters)[1:]
        return action.parse(message, *[known[name] for name in names])

    sink = io.StringIO()
    with connect(url, max_size=2 ** 24, open_timeout=60) as socket:
        while True:
            try:
                message = json.loads(socket.recv())
            except Exception:  # the server closed the connection
                break
            if message.get("stage") == "beginning":
                seat, deals = message["myPos"], deals + 1
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
