// Read counting on a real Redis: buckets, TTL, bounded memory, and never counting a read twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, uniqueKey, silentLogger, recordingLogger } from './support/redis.mjs';
import { startProxy } from './support/proxy.mjs';
import { RefresherClient } from '../index.js';
import { bucketKey, secondOf, shardOf } from '../src/protocol/accessProtocol.js';

/** The bucket field of key for a flush at clock time ms. */
function bucketOf(key, ms) {
  return bucketKey(shardOf(key), secondOf(ms));
}

async function until(condition, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await sleep(10);
  }
}

test('counts land in the bucket of their shard and second, with a 60 s TTL', async () => {
  const admin = await connect();
  const now = Date.now();
  const client = new RefresherClient(await connect(), { clock: () => now, flushIntervalMs: 60_000, logger: silentLogger });
  const plain = uniqueKey('product');
  const tagged = `user:{${uniqueKey('7')}}:cart`;
  for (let i = 0; i < 3; i++) client.record(plain);
  await client.get(tagged);
  await client.get(tagged);

  assert.equal(await client.flush(), true);

  assert.equal(await admin.hGet(bucketOf(plain, now), plain), '3');
  assert.equal(await admin.hGet(bucketOf(tagged, now), tagged), '2');
  for (const bucket of [bucketOf(plain, now), bucketOf(tagged, now)]) {
    const ttl = await admin.ttl(bucket);
    assert.ok(ttl > 50 && ttl <= 60, `TTL of ${bucket}: ${ttl}`);
  }
  assert.deepEqual(client.stats().access, { recorded: 5, flushed: 5, dropped: 0, unconfirmed: 0, flushFailures: 0, pendingKeys: 0, failing: false });
  assert.equal(await client.close(), 0);
});

test('the timer flushes by itself, and close() reports what is left', async () => {
  const admin = await connect();
  const now = Date.now();
  const client = new RefresherClient(await connect(), { clock: () => now, flushIntervalMs: 50, logger: silentLogger });
  const key = uniqueKey('timed');
  client.record(key);
  await until(async () => (await admin.hGet(bucketOf(key, now), key)) === '1', 2000, 'the timed flush');
  client.record(key);
  client.record(key);
  assert.equal(await client.close(), 0);
  assert.equal(await admin.hGet(bucketOf(key, now), key), '3');
  client.record(key); // after close: dropped, as in Java
  assert.equal(client.stats().access.dropped, 1);
});

test('memory is bounded: reads of new keys beyond maxPendingKeys are dropped and counted', async () => {
  const admin = await connect();
  const now = Date.now();
  const client = new RefresherClient(await connect(), { clock: () => now, maxPendingKeys: 3, flushIntervalMs: 60_000, logger: silentLogger });
  const keys = [0, 1, 2, 3, 4].map((i) => uniqueKey(`bounded${i}`));
  for (const key of keys) client.record(key);
  client.record(keys[0]); // a pending key still counts
  assert.deepEqual(client.stats().access, { recorded: 6, flushed: 0, dropped: 2, unconfirmed: 0, flushFailures: 0, pendingKeys: 3, failing: false });

  assert.equal(await client.flush(), true);

  assert.equal(await admin.hGet(bucketOf(keys[0], now), keys[0]), '2');
  assert.equal(await admin.hGet(bucketOf(keys[1], now), keys[1]), '1');
  assert.equal(await admin.hGet(bucketOf(keys[2], now), keys[2]), '1');
  assert.equal(await admin.hGet(bucketOf(keys[3], now), keys[3]), null);
  assert.equal(await admin.hGet(bucketOf(keys[4], now), keys[4]), null);
  const s = client.stats().access;
  assert.equal(s.recorded, s.flushed + s.dropped + s.unconfirmed);
  await client.close();
});

test('a flush whose answer is lost (Redis paused past the command timeout) counts each read once, the rest unconfirmed', async () => {
  const admin = await connect();
  const now = Date.now();
  const logger = recordingLogger();
  const client = new RefresherClient(await connect(), { clock: () => now, commandTimeoutMs: 200, flushIntervalMs: 60_000, logger });
  const hot = uniqueKey('paused:hot');
  const other = uniqueKey('paused:other');
  for (let i = 0; i < 4; i++) client.record(hot);
  for (let i = 0; i < 2; i++) client.record(other);

  await admin.sendCommand(['CLIENT', 'PAUSE', '1000', 'ALL']);
  const complete = await client.flush();

  assert.equal(complete, false, 'the flush did not complete');
  assert.deepEqual(client.stats().access, { recorded: 6, flushed: 0, dropped: 0, unconfirmed: 6, flushFailures: 1, pendingKeys: 0, failing: true });
  assert.equal(logger.lines.warn.length, 1, 'one warning for the failing streak');
  assert.match(logger.lines.warn[0], /6 reads unconfirmed/);

  // Redis runs the calls once the pause ends; nothing sends them again.
  await until(async () => (await admin.hGet(bucketOf(hot, now), hot)) === '4', 5000, 'the paused calls to run');
  assert.equal(await client.flush(), true, 'nothing pending');
  assert.equal(client.stats().access.failing, true, 'an empty flush changes nothing');
  client.record(hot);
  assert.equal(await client.flush(), true);
  await sleep(200);
  assert.equal(await admin.hGet(bucketOf(hot, now), hot), '5', 'each read once: 4 unconfirmed, then 1 flushed');
  assert.equal(await admin.hGet(bucketOf(other, now), other), '2');
  assert.deepEqual(client.stats().access, { recorded: 7, flushed: 1, dropped: 0, unconfirmed: 6, flushFailures: 1, pendingKeys: 0, failing: false });
  assert.equal(logger.lines.info.length, 1, 'recovery is logged');
  await client.close();
});

test('a flush Redis surely did not run (connection down, offline queue) is kept for the next, never sent by node-redis later', async () => {
  const admin = await connect();
  const now = Date.now();
  const proxy = await startProxy();
  const redis = await connect({ url: proxy.url(), socket: { reconnectStrategy: () => 100 } });
  const client = new RefresherClient(redis, { clock: () => now, commandTimeoutMs: 200, flushIntervalMs: 60_000, logger: silentLogger });
  const key = uniqueKey('offline');
  for (let i = 0; i < 3; i++) client.record(key);

  proxy.cut(); // node-redis reconnects, is refused, and keeps commands in its offline queue meanwhile
  await until(() => !redis.isReady, 2000, 'the client to see its connection gone');
  assert.equal(await client.flush(), false);
  assert.deepEqual(client.stats().access, { recorded: 3, flushed: 0, dropped: 0, unconfirmed: 0, flushFailures: 1, pendingKeys: 1, failing: true });

  await proxy.restore();
  await until(() => redis.isReady, 5000, 'the client to reconnect');
  await sleep(100);
  assert.equal(await admin.hGet(bucketOf(key, now), key), null, 'the aborted calls were not written after the reconnect');
  assert.equal(await client.flush(), true);
  assert.equal(await admin.hGet(bucketOf(key, now), key), '3');
  assert.deepEqual(client.stats().access, { recorded: 3, flushed: 3, dropped: 0, unconfirmed: 0, flushFailures: 1, pendingKeys: 0, failing: false });
  await client.close();
});

test('a flush after SCRIPT FLUSH sends its scripts by EVAL (NOSCRIPT: not run) and counts once', async () => {
  const admin = await connect();
  const now = Date.now();
  const client = new RefresherClient(await connect(), { clock: () => now, flushIntervalMs: 60_000, logger: silentLogger });
  const keys = Array.from({ length: 40 }, (_, i) => uniqueKey(`noscript${i}`)); // several shards
  for (const key of keys) client.record(key);
  await admin.sendCommand(['SCRIPT', 'FLUSH']);
  assert.equal(await client.flush(), true);
  for (const key of keys) {
    assert.equal(await admin.hGet(bucketOf(key, now), key), '1', key);
  }
  await client.close();
});

test('closing with Redis unreachable resolves with the reads not reported, and logs them', async () => {
  const redis = await connect();
  const logger = recordingLogger();
  const client = new RefresherClient(redis, { commandTimeoutMs: 200, flushIntervalMs: 60_000, logger });
  client.record(uniqueKey('lost'));
  client.record(uniqueKey('lost'));
  if (typeof redis.destroy === 'function') redis.destroy();
  else await redis.disconnect();
  assert.equal(await client.close(), 2);
  assert.match(logger.lines.warn.at(-1), /2 reads were not reported/);
  const s = client.stats().access;
  assert.equal(s.dropped, 2);
  assert.equal(s.failing, true);
  assert.equal(s.recorded, s.flushed + s.dropped + s.unconfirmed + s.pendingKeys);
});
