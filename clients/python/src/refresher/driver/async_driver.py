"""The client's Redis operations on ``redis.asyncio.Redis``: the sync driver's twin, awaited.

The flush's pipeline is written by hand on one pooled connection and sent once, for the reason
given in :mod:`refresher.driver.sync_driver`.
"""

import inspect
from typing import Any, List, Sequence

from redis import exceptions as redis_errors

from refresher.driver import error_replies
from refresher.driver.outcome import CallOutcome, OutcomeKind, ScriptCall
from refresher.driver.replies import connection_getter_takes_command, decoded
from refresher.driver.sync_driver import _REDIS_FAILURES, _command
from refresher.scripts import RedisScript

try:
    from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
except ImportError:  # pragma: no cover - depends on the redis-py version
    AsyncRedisCluster = None  # type: ignore[assignment,misc]


class AsyncDriver:
    """Built on the application's ``redis.asyncio.Redis``, left open."""

    def __init__(self, client):
        if client is None:
            raise TypeError("a redis.asyncio.Redis client is required")
        if AsyncRedisCluster is not None and isinstance(client, AsyncRedisCluster):
            # Its nodes' connections are not reachable through a public pool, and its own
            # pipeline may re-send a batch: the flush could not promise to count a read once.
            raise TypeError(
                "AsyncRefresherClient does not support redis.asyncio.cluster.RedisCluster yet;"
                " use RefresherClient on redis.cluster.RedisCluster"
            )
        if not hasattr(client, "connection_pool") or not inspect.iscoroutinefunction(getattr(client, "execute_command", None)):
            raise TypeError("AsyncRefresherClient needs a redis.asyncio.Redis; for redis.Redis use RefresherClient")
        self._client = client

    async def get(self, key: str):
        return decoded(await self._client.get(key))

    async def set_if_absent(self, key: str, value: str, lease_millis: int) -> bool:
        return bool(await self._client.set(key, value, nx=True, px=lease_millis))

    async def eval(self, script: RedisScript, keys: Sequence[str], args: Sequence[str]) -> Any:
        try:
            reply = await self._client.evalsha(script.sha1, len(keys), *keys, *args)
        except redis_errors.ResponseError as failure:
            if not error_replies.is_no_script(failure):
                raise
            reply = await self._client.eval(script.text, len(keys), *keys, *args)
        return decoded(reply)

    async def eval_pipelined(self, script: RedisScript, calls: Sequence[ScriptCall]) -> List[CallOutcome]:
        outcomes = await self._send(script, calls, by_sha=True)
        again = [
            index
            for index, outcome in enumerate(outcomes)
            if outcome.kind is OutcomeKind.NOT_RUN
            and outcome.failure is not None
            and error_replies.is_no_script(outcome.failure)
        ]
        if again:
            second = await self._send(script, [calls[index] for index in again], by_sha=False)
            for index, outcome in zip(again, second):
                outcomes[index] = outcome
        return outcomes

    @staticmethod
    def is_redis_failure(failure: BaseException) -> bool:
        return isinstance(failure, _REDIS_FAILURES)

    async def _send(self, script: RedisScript, calls: Sequence[ScriptCall], by_sha: bool) -> List[CallOutcome]:
        commands = [_command(script, call, by_sha) for call in calls]
        pool = self._client.connection_pool
        count = len(commands)
        try:
            if connection_getter_takes_command(pool):
                connection = await pool.get_connection("EVALSHA")
            else:
                connection = await pool.get_connection()
        except (OSError,) + _REDIS_FAILURES as no_connection:
            return [CallOutcome.not_run(no_connection)] * count
        try:
            packed = connection.pack_commands(commands)
            try:
                await connection.send_packed_command(packed, check_health=False)
            except (OSError,) + _REDIS_FAILURES as sending_failed:
                await connection.disconnect()
                return [CallOutcome.unknown(sending_failed)] * count
            outcomes: List[CallOutcome] = []
            for index in range(count):
                try:
                    await connection.read_response()
                    outcomes.append(CallOutcome.done())
                except (OSError,) + _REDIS_FAILURES as failure:
                    if error_replies.is_error_reply(failure):
                        refused = error_replies.refused_without_running(failure)
                        outcomes.append(CallOutcome.not_run(failure) if refused else CallOutcome.unknown(failure))
                        continue
                    await connection.disconnect()
                    outcomes.extend([CallOutcome.unknown(failure)] * (count - index))
                    break
            return outcomes
        finally:
            released = pool.release(connection)
            if inspect.isawaitable(released):
                await released
