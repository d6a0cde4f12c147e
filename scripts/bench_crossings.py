"""What a crossing between a web process's event loop and a database thread costs.

    .venv/bin/python scripts/bench_crossings.py [--calls 5000] [--rounds 2]

A table page's step crosses from the event loop to one of the database threads (the
door) and, once committed, hands its events back to the loop. This measures the CPU of
one such call (the process's CPU time over many calls, both threads together), in the
ways the site has done it:

- ``bare``: the thread does nothing more;
- ``wait``: the thread sends back with ``async_to_sync`` and waits for the send (the door
  before 8 Dec);
- ``hand``: the thread hands the send to the loop (``asyncio.run_coroutine_threadsafe``)
  and goes on (``games.live.broadcast.sends_on``);

each with the task's context as a web process had it before 8 Dec (33 URL resolvers'
flags in ``asgiref.local.Local`` objects, set at start-up in the main context) and as it
has it now (none). Machines of this kind differ by a factor of 2-3 in speed: compare the
rows of one run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import time
from concurrent.futures import ThreadPoolExecutor

from asgiref.local import Local
from asgiref.sync import async_to_sync, sync_to_async

POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="table-db")


async def _nothing() -> int:
    return 1


def _bare(loop) -> int:
    return 1


def _wait(loop) -> int:
    return async_to_sync(_nothing)()


def _hand(loop) -> int:
    asyncio.run_coroutine_threadsafe(_nothing(), loop)
    return 1


async def _calls(work, calls: int) -> float:
    loop = asyncio.get_running_loop()
    call = sync_to_async(work, thread_sensitive=False, executor=POOL)
    for _ in range(200):  # warm up the threads
        await call(loop)
    began = time.process_time()
    for _ in range(calls):
        await call(loop)
    await asyncio.sleep(0.05)  # the last handed sends
    return (time.process_time() - began) / calls * 1e6


def _in_context(flags: int, work, calls: int) -> float:
    def run():
        for resolver in [Local() for _ in range(flags)]:
            resolver.populating = False  # what a URL resolver leaves behind
        return asyncio.run(_calls(work, calls))

    return contextvars.copy_context().run(run)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    print("us of CPU a call (both threads), per round")
    for flags in (33, 0):
        for name, work in (("bare", _bare), ("wait", _wait), ("hand", _hand)):
            figures = [_in_context(flags, work, args.calls) for _ in range(args.rounds)]
            print(f"  {flags:2d} context variables, {name}: " + "  ".join(f"{f:6.1f}" for f in figures))


if __name__ == "__main__":
    main()
