"""Parts that need no Redis: bounded pending counts, the flush plan and its tally, error replies,
options."""

from datetime import timedelta

import pytest
from redis import exceptions as redis_errors

from refresher import access_bucket_writer
from refresher.driver import error_replies
from refresher.driver.outcome import CallOutcome
from refresher.options import FlightOptions, ttl_millis
from refresher.pending_counts import PendingCounts
from refresher.protocol import access_protocol


def test_pending_counts_are_bounded_and_exact():
    pending = PendingCounts(2)
    assert pending.add("a", 1) and pending.add("b", 1) and pending.add("a", 2)
    assert not pending.add("c", 1), "a third key does not fit"
    assert pending.pending_keys == 2
    assert pending.drain() == {"a": 3, "b": 1}
    assert pending.pending_keys == 0 and pending.add("c", 1)


def test_the_plan_is_one_call_per_shard_and_at_most_1000_fields_a_call():
    counts = {f"k{i}": i + 1 for i in range(3000)}
    chunks, calls = access_bucket_writer.plan(counts, 1_764_806_400_999)
    assert len(chunks) == len(calls)
    assert sum(len(piece) for _, piece in chunks) == 3000
    for (shard, piece), call in zip(chunks, calls):
        assert len(piece) <= access_bucket_writer.MAX_FIELDS_PER_CALL
        assert list(call.keys) == [f"refresher:access:{{{shard}}}:1764806400"]
        assert call.args[0] == "60"
        assert all(access_protocol.shard_of(key) == shard for key in piece)
        assert list(call.args[1::2]) == list(piece) and list(call.args[2::2]) == [str(n) for n in piece.values()]


def test_the_tally_keeps_what_did_not_run_and_never_resends_the_unknown():
    chunks = [(0, {"a": 2}), (1, {"b": 3}), (2, {"c": 5})]
    outcomes = [
        CallOutcome.done(),
        CallOutcome.not_run(redis_errors.ReadOnlyError("You can't write against a read only replica.")),
        CallOutcome.unknown(redis_errors.TimeoutError("Timeout reading from socket")),
    ]
    result = access_bucket_writer.tally(chunks, outcomes)
    assert (result.written, result.unwritten, result.unconfirmed) == (2, {"b": 3}, 5)
    assert not result.complete and result.error is not None


@pytest.mark.parametrize(
    "reply",
    [
        redis_errors.ResponseError("OOM command not allowed when used memory > 'maxmemory'."),
        redis_errors.ResponseError("BUSY Redis is busy running a script."),
        redis_errors.ResponseError("CLUSTERDOWN The cluster is down"),
        redis_errors.ResponseError("TRYAGAIN Multiple keys request during rehashing of slot"),
        redis_errors.ResponseError("MASTERDOWN Link with MASTER is down"),
        redis_errors.ResponseError("MISCONF Redis is configured to save RDB snapshots"),
        redis_errors.ReadOnlyError("You can't write against a read only replica."),
        redis_errors.BusyLoadingError("Redis is loading the dataset in memory"),
        redis_errors.NoScriptError("No matching script. Please use EVAL."),
        redis_errors.AuthenticationError("Authentication required."),
    ],
    ids=repr,
)
def test_refusals_did_not_run(reply):
    assert error_replies.is_error_reply(reply)
    assert error_replies.refused_without_running(reply)


@pytest.mark.parametrize(
    "failure",
    [
        redis_errors.ResponseError("ERR Error running script (call to f_d8123a): @user_script:2: oops"),
        redis_errors.TimeoutError("Timeout reading from socket"),
        redis_errors.ConnectionError("Connection closed by server."),
    ],
    ids=repr,
)
def test_other_failures_may_have_run(failure):
    assert not error_replies.refused_without_running(failure)


def test_only_replies_are_replies():
    assert not error_replies.is_error_reply(redis_errors.TimeoutError("Timeout reading from socket"))
    assert not error_replies.is_error_reply(redis_errors.ConnectionError("Connection closed by server."))


def test_durations_are_timedeltas_or_seconds():
    assert ttl_millis(timedelta(minutes=5)) == 300_000
    assert ttl_millis(1.5) == 1500 and ttl_millis(2) == 2000
    with pytest.raises(ValueError):
        ttl_millis(0.0001)
    with pytest.raises(TypeError):
        ttl_millis("5")
    assert FlightOptions.of(10, timedelta(seconds=1), 0.02) == FlightOptions(10_000, 1.0, 0.02)
    with pytest.raises(ValueError):
        FlightOptions.of(10, -1, 0.02)
