// get(key, {ttlMs, loader}) on a real Redis: single flight, XFetch, the write rule, degradation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, redisMillis, uniqueKey, silentLogger } from './support/redis.mjs';
import { RefresherClient } from '../index.js';
import { flightLockName, metaKey } from '../src/protocol/cacheKeys.js';

/** A loader that counts its runs, waits ms, and returns value. */
function slowLoader(value, ms) {
  const loader = async () => {
    loader.runs++;
    await sleep(ms);
    return value;
  };
  loader.runs = 0;
  return loader;
}

test('8 concurrent callers of a cold key in one client: the loader runs once, all get its value', async () => {
  const admin = await connect();
  const client = new RefresherClient(await connect(), { logger: silentLogger });
  const key = uniqueKey('cold');
  const loader = slowLoader('{"id":1}', 100);

  const values = await Promise.all(Array.from({ length: 8 }, () => client.get(key, { ttlMs: 60_000, loader })));

  assert.deepEqual(values, Array(8).fill('{"id":1}'));
  assert.equal(loader.runs, 1);
  assert.equal(client.stats().loaderRuns, 1);
  assert.equal(client.stats().access.recorded, 8, 'every call is a read');
  assert.equal(await admin.get(key), '{"id":1}');
  const meta = await admin.hGetAll(metaKey(key));
  assert.equal(meta.epoch, '0');
  assert.equal(meta.token, '0');
  assert.equal(Number(meta.expiresAt) - Number(meta.computedAt), 60_000);
  assert.ok(Number(meta.delta) >= 90, `delta ${meta.delta} is the loader's time`);
  assert.equal(await admin.exists(flightLockName(key)), 0, 'the flight lock is released');
  await client.close();
});

test('8 concurrent callers across two clients on separate connections: the loader runs once', async () => {
  const first = new RefresherClient(await connect(), { logger: silentLogger });
  const second = new RefresherClient(await connect(), { logger: silentLogger });
  const key = uniqueKey('cold2');
  const loader = slowLoader('shared', 200);

  const values = await Promise.all(
    Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? first : second).get(key, { ttlMs: 60_000, loader })),
  );

  assert.deepEqual(values, Array(8).fill('shared'));
  assert.equal(loader.runs, 1);
  assert.equal(first.stats().fallbacks + second.stats().fallbacks, 0);
  await first.close();
  await second.close();
});

test('a value already there is served without the loader', async () => {
  const admin = await connect();
  const client = new RefresherClient(await connect(), { logger: silentLogger });
  const key = uniqueKey('warm');
  await admin.set(key, 'plain'); // no metadata: written by something else, returned as is
  const loader = slowLoader('never', 0);
  assert.equal(await client.get(key, { ttlMs: 1000, loader }), 'plain');
  assert.equal(await client.get(key), 'plain');
  assert.equal(await client.get(uniqueKey('absent')), null);
  assert.equal(loader.runs, 0);
  await client.close();
});

test('misses are the reads that found no value: get(key) of an absent key and a load count, a hit does not', async () => {
  const admin = await connect();
  const client = new RefresherClient(await connect(), { logger: silentLogger });
  const present = uniqueKey('present');
  const cold = uniqueKey('cold');
  await admin.set(present, 'here');
  assert.equal(await client.get(present), 'here');
  assert.equal(await client.get(present, { ttlMs: 60_000, loader: () => 'never' }), 'here');
  assert.equal(client.stats().misses, 0, 'hits are not misses');

  assert.equal(await client.get(uniqueKey('absent')), null);
  assert.equal(await client.get(cold, { ttlMs: 60_000, loader: () => 'loaded' }), 'loaded');
  assert.equal(await client.get(cold, { ttlMs: 60_000, loader: () => 'again' }), 'loaded');
  assert.equal(client.stats().misses, 2);
  assert.equal(client.stats().loaderRuns, 1);
  await client.close();
});

/** A client's value (epoch 0) that expires in expiresInMs by Redis's clock, computed in deltaMs. */
async function clientValue(admin, key, value, expiresInMs, deltaMs) {
  const now = await redisMillis(admin);
  await admin.set(key, value, { PX: 60_000 });
  await admin.hSet(metaKey(key), { epoch: '0', token: '0', computedAt: String(now), delta: String(deltaMs), expiresAt: String(now + expiresInMs) });
}

test('XFetch: a client value near its expiry is recomputed early by one caller; the others get the current value at once', async () => {
  const admin = await connect();
  const key = uniqueKey('early');
  await clientValue(admin, key, 'old', 2000, 1000);

  // uniform = 1 - random(): 1, so ln = 0 and 2 s before expiry is not yet: served.
  const patient = new RefresherClient(await connect(), { random: () => 0, logger: silentLogger });
  assert.equal(await patient.get(key, { ttlMs: 60_000, loader: slowLoader('new', 0) }), 'old');
  assert.equal(patient.stats().earlyRecomputations, 0);

  // uniform = 1e-6: 1000 ms * 13.8 reaches 2 s past expiry: recompute.
  const eager = new RefresherClient(await connect(), { random: () => 1 - 1e-6, logger: silentLogger });
  const loader = slowLoader('new', 100);
  const values = await Promise.all(Array.from({ length: 5 }, () => eager.get(key, { ttlMs: 60_000, loader })));

  assert.equal(loader.runs, 1);
  assert.deepEqual([...values].sort(), ['new', 'old', 'old', 'old', 'old']);
  assert.equal(values[0], 'new', 'the first caller recomputed');
  assert.equal(eager.stats().earlyRecomputations, 1);
  assert.equal(await admin.get(key), 'new');
  await patient.close();
  await eager.close();
});

test('a fresh value of the service (epoch > 0) is served and never overwritten by the loader', async () => {
  const admin = await connect();
  const client = new RefresherClient(await connect(), { random: () => 1 - 1e-9, logger: silentLogger });
  const key = uniqueKey('service');
  const now = await redisMillis(admin);
  await admin.set(key, 'from the service', { PX: 120_000 });
  await admin.hSet(metaKey(key), { epoch: '3', token: '9', computedAt: String(now), delta: '5000', expiresAt: String(now + 60_000) });
  const loader = slowLoader('from the client', 0);

  assert.equal(await client.get(key, { ttlMs: 60_000, loader }), 'from the service');
  assert.equal(loader.runs, 0, 'never recomputed early, whatever XFetch would say');

  // The service writes while a client's loader runs on a missing key: the client's write is refused.
  const raced = uniqueKey('raced');
  const racing = async () => {
    const t = await redisMillis(admin);
    await admin.set(raced, 'from the service', { PX: 120_000 });
    await admin.hSet(metaKey(raced), { epoch: '3', token: '10', computedAt: String(t), delta: '5', expiresAt: String(t + 60_000) });
    return 'from the client';
  };
  assert.equal(await client.get(raced, { ttlMs: 60_000, loader: racing }), 'from the client', 'the caller gets what it loaded');
  assert.equal(await admin.get(raced), 'from the service', 'the service value stays');
  assert.equal(await admin.hGet(metaKey(raced), 'token'), '10');
  await client.close();
});

test('a value of the service past its expiry is recomputed by one caller, its fence kept', async () => {
  const admin = await connect();
  const client = new RefresherClient(await connect(), { logger: silentLogger });
  const key = uniqueKey('expired');
  const now = await redisMillis(admin);
  await admin.set(key, 'stale', { PX: 120_000 });
  await admin.hSet(metaKey(key), { epoch: '3', token: '9', computedAt: String(now - 70_000), delta: '5', expiresAt: String(now - 10_000) });
  const loader = slowLoader('fresh', 50);

  const values = await Promise.all([0, 1, 2].map(() => client.get(key, { ttlMs: 60_000, loader })));

  assert.deepEqual(values, ['fresh', 'stale', 'stale']);
  assert.equal(loader.runs, 1);
  assert.equal(await admin.get(key), 'fresh');
  assert.equal(await admin.hGet(metaKey(key), 'epoch'), '3');
  assert.equal(await admin.hGet(metaKey(key), 'token'), '9');
  await client.close();
});

test('another process holding the flight lock: wait for its value, then load after waitForOtherLoaderMs', async () => {
  const admin = await connect();
  const client = new RefresherClient(await connect(), { waitForOtherLoaderMs: 300, pollIntervalMs: 10, logger: silentLogger });
  const key = uniqueKey('held');
  await admin.set(flightLockName(key), 'someone else', { PX: 10_000 });
  setTimeout(() => admin.set(key, 'theirs', { PX: 60_000 }), 100);
  assert.equal(await client.get(key, { ttlMs: 60_000, loader: slowLoader('mine', 0) }), 'theirs');

  const dead = uniqueKey('dead');
  await admin.set(flightLockName(dead), 'a dead process', { PX: 10_000 });
  const started = performance.now();
  assert.equal(await client.get(dead, { ttlMs: 60_000, loader: slowLoader('mine', 0) }), 'mine');
  assert.ok(performance.now() - started >= 290, 'waited for the other loader first');
  assert.equal(client.stats().fallbacks, 1);
  assert.equal(await admin.get(flightLockName(dead)), 'a dead process', 'never releases a lock of another');
  await client.close();
});

test('loader errors reach every waiting caller; null is returned and not cached', async () => {
  const admin = await connect();
  const client = new RefresherClient(await connect(), { logger: silentLogger });
  const key = uniqueKey('failing');
  const failing = async () => {
    await sleep(50);
    throw new Error('source down');
  };
  const results = await Promise.allSettled([0, 1, 2].map(() => client.get(key, { ttlMs: 1000, loader: failing })));
  assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected', 'rejected']);
  assert.equal(results[1].reason.message, 'source down');
  assert.equal(await admin.exists(flightLockName(key)), 0);

  assert.equal(await client.get(key, { ttlMs: 1000, loader: () => null }), null);
  assert.equal(await admin.exists(key), 0);
  await client.close();
});

test('scripts Redis does not have (SCRIPT FLUSH) are sent by EVAL', async () => {
  const admin = await connect();
  const client = new RefresherClient(await connect(), { logger: silentLogger });
  await admin.sendCommand(['SCRIPT', 'FLUSH']);
  const key = uniqueKey('noscript');
  assert.equal(await client.get(key, { ttlMs: 60_000, loader: () => 'loaded' }), 'loaded');
  assert.equal(await admin.get(key), 'loaded');
  await client.close();
});

test('Redis failing: the loader is called directly (degraded), plain get rejects', async () => {
  const redis = await connect();
  const warnings = [];
  const client = new RefresherClient(redis, { commandTimeoutMs: 200, logger: { warn: (m) => warnings.push(m) } });
  if (typeof redis.destroy === 'function') redis.destroy();
  else await redis.disconnect();
  const key = uniqueKey('degraded');
  assert.equal(await client.get(key, { ttlMs: 1000, loader: () => 'direct' }), 'direct');
  assert.equal(await client.get(key, { ttlMs: 1000, loader: () => 'direct' }), 'direct');
  assert.equal(client.stats().degradedLoads, 2);
  assert.equal(warnings.length, 1, 'rate-limited warning');
  await assert.rejects(client.get(key));
  await client.close();
});

test('options are checked', async () => {
  const redis = await connect();
  assert.throws(() => new RefresherClient({}), TypeError);
  assert.throws(() => new RefresherClient(redis, { flushIntervalMs: 5 }), RangeError);
  assert.throws(() => new RefresherClient(redis, { maxPendingKeys: 0 }), RangeError);
  assert.throws(() => new RefresherClient(redis, { beta: 0 }), RangeError);
  assert.throws(() => new RefresherClient(redis, { singleFlightLeaseMs: 0 }), RangeError);
  assert.throws(() => new RefresherClient(redis, { waitForOtherLoaderMs: -1 }), RangeError);
  assert.throws(() => new RefresherClient(redis, { pollIntervalMs: 0 }), RangeError);
  const client = new RefresherClient(redis, { logger: silentLogger });
  await assert.rejects(client.get('k', { ttlMs: 0, loader: () => 'v' }), RangeError);
  await assert.rejects(client.get('k', { ttlMs: 10 }), TypeError);
  await client.close();
});
