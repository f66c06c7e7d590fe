"""Adds read counts to the access buckets, all shards in one pipelined round trip.

One ``add-counts`` script call per shard (one bucket key, so one cluster slot), which loops over
the pairs with ``HINCRBY`` and sets the bucket's TTL (``EXPIRE 60``), at most 1,000 fields a call.

At most once: a call is sent once and a call whose outcome is unknown is never sent again. Redis
may have applied a call whose answer timed out or whose connection closed before the answer came;
sending it again counted those reads twice. Its reads are reported as ``unconfirmed`` instead: a
few lost reads bend a key's rate less than doubled ones. Only a call Redis surely did not run (no
connection, an error reply such as OOM or READONLY) is kept for the next flush.

The planning and the tally are plain functions; the sync and asyncio writers only differ in how
they wait for the driver.
"""

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from refresher import scripts
from refresher.driver.outcome import CallOutcome, OutcomeKind, ScriptCall
from refresher.protocol import access_protocol

#: Fields per script call: keeps each call short, so Redis is never blocked for long.
MAX_FIELDS_PER_CALL = 1000


@dataclass
class WriteResult:
    """``written`` reads reached Redis; ``unwritten`` surely did not (kept for the next flush);
    ``unconfirmed`` reads were sent but their answer was lost (not sent again); ``error`` says why."""

    written: int = 0
    unwritten: Dict[str, int] = field(default_factory=dict)
    unconfirmed: int = 0
    error: Optional[BaseException] = None

    @property
    def complete(self) -> bool:
        return not self.unwritten and self.unconfirmed == 0


Chunk = Tuple[int, Dict[str, int]]


def plan(counts: Dict[str, int], now_millis: int) -> Tuple[List[Chunk], List[ScriptCall]]:
    """The counts cut into one call per shard (more for a shard of over 1,000 keys)."""
    second = access_protocol.second_of(now_millis)
    by_shard: Dict[int, List[Dict[str, int]]] = {}
    for key, count in counts.items():
        pieces = by_shard.setdefault(access_protocol.shard_of(key), [])
        if not pieces or len(pieces[-1]) >= MAX_FIELDS_PER_CALL:
            pieces.append({})
        pieces[-1][key] = count
    chunks = [(shard, piece) for shard, pieces in by_shard.items() for piece in pieces]
    calls = [
        ScriptCall([access_protocol.bucket_key(shard, second)], _arguments(piece)) for shard, piece in chunks
    ]
    return chunks, calls


def tally(chunks: Sequence[Chunk], outcomes: Sequence[CallOutcome]) -> WriteResult:
    result = WriteResult()
    for (_, piece), outcome in zip(chunks, outcomes):
        reads = sum(piece.values())
        if outcome.kind is OutcomeKind.DONE:
            result.written += reads
        elif outcome.kind is OutcomeKind.NOT_RUN:
            result.unwritten.update(piece)
        else:
            result.unconfirmed += reads
        if result.error is None and outcome.failure is not None:
            result.error = outcome.failure
    if not result.complete and result.error is None:
        result.error = RuntimeError("a pipelined access-count write did not complete")
    return result


def _arguments(piece: Dict[str, int]) -> List[str]:
    arguments = [str(access_protocol.BUCKET_TTL_SECONDS)]
    for key, count in piece.items():
        arguments.append(key)
        arguments.append(str(count))
    return arguments


class AccessBucketWriter:
    def __init__(self, driver):
        self._driver = driver

    def write(self, counts: Dict[str, int], now_millis: int) -> WriteResult:
        chunks, calls = plan(counts, now_millis)
        return tally(chunks, self._driver.eval_pipelined(scripts.ADD_COUNTS, calls))


class AsyncAccessBucketWriter:
    def __init__(self, driver):
        self._driver = driver

    async def write(self, counts: Dict[str, int], now_millis: int) -> WriteResult:
        chunks, calls = plan(counts, now_millis)
        return tally(chunks, await self._driver.eval_pipelined(scripts.ADD_COUNTS, calls))
