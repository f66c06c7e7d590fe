// The parts that need no Redis: the flush's bookkeeping and the classification of failed calls,
// on a fake node-redis client that fails the way node-redis does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AccessCounter } from '../src/accessCounter.js';
import { PendingCounts } from '../src/pendingCounts.js';
import { EarlyRecompute } from '../src/earlyRecompute.js';
import { NodeRedisDriver, outcomeOfFailure } from '../src/driver/nodeRedisDriver.js';
import { refusedWithoutRunning } from '../src/driver/errorReplies.js';
import { ADD_COUNTS } from '../src/scripts.js';
import { recordingLogger } from './support/redis.mjs';

// Shaped like node-redis's errors: classified by their class names, as the driver does.
class ErrorReply extends Error {}
class SimpleError extends ErrorReply {} // node-redis 5's subclass for "-ERR ..." replies
class AbortError extends Error {}
class ClientClosedError extends Error {}
class SocketClosedUnexpectedlyError extends Error {}

/**
 * A node-redis stand-in: each EVALSHA/EVAL of a bucket is answered by behaviour(bucket, args),
 * which returns a reply, throws, or returns 'hang' (written, never answered) or 'queued' (in the
 * offline queue: rejected with AbortError when the call is aborted).
 */
function fakeRedis(behaviour) {
  const sent = [];
  return {
    sent,
    sendCommand(args, options) {
      sent.push(args);
      return new Promise((resolve, reject) => {
        let answer;
        try {
          answer = behaviour(args[3], args);
        } catch (err) {
          reject(err);
          return;
        }
        if (answer === 'queued') {
          options.abortSignal.addEventListener('abort', () => reject(new AbortError('The command was aborted')));
        } else if (answer !== 'hang') {
          resolve(answer);
        }
      });
    },
  };
}

test('failed calls: what Redis surely did not run, and what it may have', () => {
  assert.equal(outcomeOfFailure(new ErrorReply('OOM command not allowed')).kind, 'NOT_RUN');
  assert.equal(outcomeOfFailure(new SimpleError('READONLY You cannot write')).kind, 'NOT_RUN');
  assert.equal(outcomeOfFailure(new ErrorReply('NOSCRIPT No matching script')).kind, 'NOT_RUN');
  assert.equal(outcomeOfFailure(new SimpleError('ERR Error running script')).kind, 'UNKNOWN', 'a script may have written before failing');
  assert.equal(outcomeOfFailure(new AbortError()).kind, 'NOT_RUN');
  assert.equal(outcomeOfFailure(new ClientClosedError('The client is closed')).kind, 'NOT_RUN');
  assert.equal(outcomeOfFailure(new SocketClosedUnexpectedlyError('Socket closed unexpectedly')).kind, 'UNKNOWN');
  assert.equal(outcomeOfFailure(new Error('anything else')).kind, 'UNKNOWN');
  for (const code of ['OOM', 'READONLY', 'LOADING', 'BUSY', 'CLUSTERDOWN', 'TRYAGAIN', 'MASTERDOWN', 'NOAUTH']) {
    assert.ok(refusedWithoutRunning(`${code} something`), code);
  }
  assert.ok(!refusedWithoutRunning('ERR unknown'));
  assert.ok(!refusedWithoutRunning('WRONGTYPE Operation against a key'));
});

test('a flush: done calls are flushed, refused ones kept, lost ones unconfirmed and never sent again', async () => {
  // a, b, c and d fall in shards 3, 9, 15 and 12: one call each.
  const redis = fakeRedis((bucket, args) => {
    const key = args[5];
    if (key === 'b') throw new ErrorReply('OOM command not allowed when used memory > maxmemory');
    if (key === 'c') return 'hang';
    if (key === 'd') return 'queued';
    return 1;
  });
  const logger = recordingLogger();
  const counter = new AccessCounter(new NodeRedisDriver(redis, { commandTimeoutMs: 50 }), { flushIntervalMs: 60_000, logger });
  for (const key of ['a', 'b', 'c', 'd']) {
    counter.record(key);
    counter.record(key);
  }
  assert.equal(await counter.flush(), false);
  assert.deepEqual(counter.stats(), { recorded: 8, flushed: 2, dropped: 0, unconfirmed: 2, flushFailures: 1, pendingKeys: 2, failing: true });
  assert.equal(logger.lines.warn.length, 1);

  redis.sent.length = 0;
  const again = fakeRedis(() => 1);
  redis.sendCommand = again.sendCommand; // Redis works again
  assert.equal(await counter.flush(), true);
  const resent = again.sent.map((args) => args[5]).sort();
  assert.deepEqual(resent, ['b', 'd'], 'only what surely did not run is sent again');
  assert.deepEqual(counter.stats(), { recorded: 8, flushed: 6, dropped: 0, unconfirmed: 2, flushFailures: 1, pendingKeys: 0, failing: false });
  assert.equal(logger.lines.info.length, 1);
  assert.equal(await counter.close(), 0);
});

test('NOSCRIPT calls of a pipeline are sent again by EVAL, the others not', async () => {
  const redis = fakeRedis((bucket, args) => {
    if (args[0] === 'EVALSHA' && args[5] === 'a') throw new ErrorReply('NOSCRIPT No matching script. Please use EVAL.');
    return 1;
  });
  const driver = new NodeRedisDriver(redis, { commandTimeoutMs: 1000 });
  const outcomes = await driver.evalPipelined(ADD_COUNTS, [
    { keys: ['refresher:access:{9}:1'], args: ['60', 'a', '1'] },
    { keys: ['refresher:access:{10}:1'], args: ['60', 'b', '1'] },
  ]);
  assert.deepEqual(outcomes.map((o) => o.kind), ['DONE', 'DONE']);
  assert.deepEqual(redis.sent.map((args) => `${args[0]} ${args[5]}`), ['EVALSHA a', 'EVALSHA b', 'EVAL a']);
  assert.equal(redis.sent[2][1], ADD_COUNTS.text);
});

test('a refused flush that no longer fits is dropped; close() drops what Redis did not take', async () => {
  const redis = fakeRedis(() => {
    throw new ErrorReply('LOADING Redis is loading the dataset in memory');
  });
  const logger = recordingLogger();
  const counter = new AccessCounter(new NodeRedisDriver(redis), { maxPendingKeys: 2, flushIntervalMs: 60_000, logger });
  counter.record('a');
  counter.record('a');
  counter.record('b');
  assert.equal(await counter.flush(), false);
  assert.equal(counter.stats().pendingKeys, 2, 'kept');
  counter.record('c'); // no room: dropped
  assert.equal(await counter.close(), 3);
  assert.deepEqual(counter.stats(), { recorded: 4, flushed: 0, dropped: 4, unconfirmed: 0, flushFailures: 2, pendingKeys: 0, failing: true });
  assert.match(logger.lines.warn.at(-1), /3 reads were not reported/);
});

test('pending counts are bounded', () => {
  const pending = new PendingCounts(2);
  assert.ok(pending.add('a', 1));
  assert.ok(pending.add('b', 1));
  assert.ok(!pending.add('c', 1));
  assert.ok(pending.add('a', 5));
  assert.deepEqual([...pending.drain()], [['a', 6], ['b', 1]]);
  assert.equal(pending.pendingKeys(), 0);
  assert.throws(() => new PendingCounts(0), RangeError);
});

test('XFetch draws in (0, 1]: never ln(0)', () => {
  assert.equal(new EarlyRecompute(1, () => 0).shouldRecompute(0, 1000, 1), false, 'uniform 1: only at expiry');
  assert.equal(new EarlyRecompute(1, () => 0).shouldRecompute(1, 1000, 1), true);
  assert.equal(new EarlyRecompute(1, () => 0.999999).shouldRecompute(0, 1000, 10_000), true);
  assert.throws(() => new EarlyRecompute(0), RangeError);
  assert.throws(() => new EarlyRecompute(Infinity), RangeError);
});
