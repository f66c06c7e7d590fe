"""The client's Redis operations on redis-py's blocking clients.

Single commands (``GET``, ``SET NX PX``, the read and write scripts) go through the application's
client as any of its own commands do, with whatever retries it is configured with: each is safe to
send twice (docs/protocol.md, "Script idempotence").

The flush is different: a count sent twice is counted twice. So its pipeline is written by hand on
one connection taken from the client's pool (one per node of a cluster), sent once, and each call's
answer read and classified: answered; refused by an error reply (not run, may be sent again); or
lost (sent, no answer: may have run, never sent again). redis-py's own pipeline would re-send the
whole batch after a timeout when the client has ``retry_on_timeout`` or a ``Retry`` configured.
"""

import inspect
from typing import Any, Dict, List, Sequence

from redis import exceptions as redis_errors

from refresher.driver import error_replies
from refresher.driver.outcome import CallOutcome, OutcomeKind, ScriptCall
from refresher.driver.replies import connection_getter_takes_command, decoded
from refresher import scripts
from refresher.scripts import RedisScript

try:  # redis-py 4.1+: Redis Cluster support
    from redis.cluster import RedisCluster
except ImportError:  # pragma: no cover - redis>=4.3 has it
    RedisCluster = None  # type: ignore[assignment,misc]

_REDIS_FAILURES = (redis_errors.RedisError, getattr(redis_errors, "RedisClusterException", redis_errors.RedisError))


class SyncDriver:
    """Built on the application's ``redis.Redis`` or ``redis.cluster.RedisCluster``, left open."""

    def __init__(self, client):
        if client is None:
            raise TypeError("a redis.Redis (or redis.cluster.RedisCluster) client is required")
        if inspect.iscoroutinefunction(getattr(client, "execute_command", None)):
            raise TypeError("a redis.asyncio client: use AsyncRefresherClient")
        self._client = client
        self._cluster = RedisCluster is not None and isinstance(client, RedisCluster)
        if self._cluster:
            self._load_scripts_on_every_primary()

    @property
    def is_cluster(self) -> bool:
        return self._cluster

    def get(self, key: str):
        return decoded(self._client.get(key))

    def set_if_absent(self, key: str, value: str, lease_millis: int) -> bool:
        return bool(self._client.set(key, value, nx=True, px=lease_millis))

    def eval(self, script: RedisScript, keys: Sequence[str], args: Sequence[str]) -> Any:
        try:
            reply = self._client.evalsha(script.sha1, len(keys), *keys, *args)
        except redis_errors.ResponseError as failure:
            if not error_replies.is_no_script(failure):
                raise
            # A restarted or new node has no scripts: EVAL runs it and caches it for next time.
            reply = self._client.eval(script.text, len(keys), *keys, *args)
        return decoded(reply)

    def eval_pipelined(self, script: RedisScript, calls: Sequence[ScriptCall]) -> List[CallOutcome]:
        """One call per element, one round trip per node; never raises for Redis's failures."""
        outcomes = self._send(script, calls, by_sha=True)
        # Calls a node answered NOSCRIPT did not run: send them again, as text.
        again = [
            index
            for index, outcome in enumerate(outcomes)
            if outcome.kind is OutcomeKind.NOT_RUN
            and outcome.failure is not None
            and error_replies.is_no_script(outcome.failure)
        ]
        if again:
            second = self._send(script, [calls[index] for index in again], by_sha=False)
            for index, outcome in zip(again, second):
                outcomes[index] = outcome
        return outcomes

    @staticmethod
    def is_redis_failure(failure: BaseException) -> bool:
        return isinstance(failure, _REDIS_FAILURES)

    def _load_scripts_on_every_primary(self) -> None:
        """redis-py's cluster client logs every error reply with a traceback (logger redis.cluster),
        so NOSCRIPT, harmless here, would fill the log: the scripts are loaded up front instead. A
        node that lacks one later (restarted, new) still gets it by EVAL."""
        for script in scripts.ALL:
            try:
                self._client.script_load(script.text)
            except _REDIS_FAILURES:
                return  # unreachable now: EVALSHA's NOSCRIPT fallback covers it later

    def _send(self, script: RedisScript, calls: Sequence[ScriptCall], by_sha: bool) -> List[CallOutcome]:
        commands = [_command(script, call, by_sha) for call in calls]
        if not self._cluster:
            return _send_on_pool(self._client.connection_pool, commands)
        outcomes: List[CallOutcome] = [None] * len(calls)  # type: ignore[list-item]
        by_node: Dict[str, List[int]] = {}
        pools = {}
        for index, call in enumerate(calls):
            try:
                node = self._client.get_node_from_key(call.keys[0])
                pools[node.name] = node.redis_connection.connection_pool
            except _REDIS_FAILURES as no_route:
                outcomes[index] = CallOutcome.not_run(no_route)
                continue
            by_node.setdefault(node.name, []).append(index)
        for name, indexes in by_node.items():
            for index, outcome in zip(indexes, _send_on_pool(pools[name], [commands[i] for i in indexes])):
                outcomes[index] = outcome
        return outcomes


def _command(script: RedisScript, call: ScriptCall, by_sha: bool) -> tuple:
    name, body = ("EVALSHA", script.sha1) if by_sha else ("EVAL", script.text)
    return (name, body, len(call.keys), *call.keys, *call.args)


def _send_on_pool(pool, commands: List[tuple]) -> List[CallOutcome]:
    """The commands in one pipeline on one connection of ``pool``, each sent exactly once."""
    count = len(commands)
    try:
        connection = pool.get_connection("EVALSHA") if connection_getter_takes_command(pool) else pool.get_connection()
    except (OSError,) + _REDIS_FAILURES as no_connection:
        # Nothing was written anywhere.
        return [CallOutcome.not_run(no_connection)] * count
    try:
        packed = connection.pack_commands(commands)
        try:
            connection.send_packed_command(packed, check_health=False)
        except (OSError,) + _REDIS_FAILURES as sending_failed:
            # Some of it may have reached Redis, and Redis runs every command it received whole.
            connection.disconnect()
            return [CallOutcome.unknown(sending_failed)] * count
        outcomes: List[CallOutcome] = []
        for index in range(count):
            try:
                connection.read_response()
                outcomes.append(CallOutcome.done())
            except (OSError,) + _REDIS_FAILURES as failure:
                if error_replies.is_error_reply(failure):
                    # Answered: the connection is in step, the next answers follow.
                    refused = error_replies.refused_without_running(failure)
                    outcomes.append(CallOutcome.not_run(failure) if refused else CallOutcome.unknown(failure))
                    continue
                # A timeout or a closed connection: this call and those after it may have run.
                connection.disconnect()
                outcomes.extend([CallOutcome.unknown(failure)] * (count - index))
                break
        return outcomes
    finally:
        pool.release(connection)
