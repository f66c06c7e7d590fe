"""Runs the Python client as a separate process for the Java integration tests.

    PYTHONPATH=clients/python/src /usr/bin/python3 clients/python/tests/acceptance_driver.py <command> ...

Commands (each prints ONE JSON line to stdout at the end; logs go to stderr):
  reads  --redis URL --key K --rate R --seconds S
         get(K) R times a second for S seconds, paced, then close(): {"reads": n, "misses": m}
  flight --redis URL --key K --callers N --ttl-ms T --value V --loader-ms D
         N threads call get(K, T ms, loader) at once; the loader sleeps D ms and returns V:
         {"loads": loader runs in this process, "values": [what each caller got]}
  read   --redis URL --key K
         one get(K): {"value": value or null}
"""

import argparse
import json
import logging
import sys
import threading
import time
from datetime import timedelta

import redis

from refresher import RefresherClient


def reads(client, key: str, rate: float, seconds: float) -> dict:
    total = max(0, round(rate * seconds))
    started = time.monotonic()
    misses = 0
    for index in range(total):
        # Paced against the start, so a slow read does not push every later one back.
        due = started + index / rate
        pause = due - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        if client.get(key) is None:
            misses += 1
    return {"reads": total, "misses": misses}


def flight(client, key: str, callers: int, ttl_ms: int, value: str, loader_ms: int) -> dict:
    loads = []
    loads_lock = threading.Lock()
    start = threading.Barrier(callers)
    values = [None] * callers
    failures = []

    def loader():
        with loads_lock:
            loads.append(1)
        time.sleep(loader_ms / 1000)
        return value

    def caller(index):
        start.wait()
        try:
            values[index] = client.get(key, timedelta(milliseconds=ttl_ms), loader)
        except Exception as failure:  # reported, not hidden
            failures.append(repr(failure))

    threads = [threading.Thread(target=caller, args=(i,)) for i in range(callers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    result = {"loads": len(loads), "values": values}
    if failures:
        result["errors"] = failures
    return result


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = root.add_subparsers(dest="command", required=True)
    for name in ("reads", "flight", "read"):
        command = commands.add_parser(name)
        command.add_argument("--redis", required=True, help="redis://host:port/db")
        command.add_argument("--key", required=True)
    commands.choices["reads"].add_argument("--rate", type=float, required=True, help="reads a second")
    commands.choices["reads"].add_argument("--seconds", type=float, required=True)
    flight_command = commands.choices["flight"]
    flight_command.add_argument("--callers", type=int, required=True)
    flight_command.add_argument("--ttl-ms", type=int, required=True)
    flight_command.add_argument("--value", required=True)
    flight_command.add_argument("--loader-ms", type=int, required=True)
    return root


def main(argv=None) -> int:
    arguments = parser().parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    app = redis.Redis.from_url(arguments.redis)
    client = RefresherClient(app)
    try:
        if arguments.command == "reads":
            result = reads(client, arguments.key, arguments.rate, arguments.seconds)
        elif arguments.command == "flight":
            result = flight(
                client, arguments.key, arguments.callers, arguments.ttl_ms, arguments.value, arguments.loader_ms
            )
        else:
            result = {"value": client.get(arguments.key)}
    finally:
        client.close()
        app.close()
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
