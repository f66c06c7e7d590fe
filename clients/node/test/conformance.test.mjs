// The Node client against the conformance corpus (protocol/vectors, or REFRESHER_VECTORS): every
// case's inputs through this implementation give the case's outputs, as in Java's
// ProtocolVectorsTest and DriverContract.writeRule_asTheCorpusSays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { vectors } from './support/env.mjs';
import { connect, redisMillis } from './support/redis.mjs';
import * as AccessProtocol from '../src/protocol/accessProtocol.js';
import * as CacheKeys from '../src/protocol/cacheKeys.js';
import { EarlyRecompute } from '../src/earlyRecompute.js';
import { StoredValue } from '../src/storedValue.js';
import { decide } from '../src/readDecision.js';
import { SCRIPTS, sha1Of } from '../src/scripts.js';
import { NodeRedisDriver } from '../src/driver/nodeRedisDriver.js';
import { ValueStore } from '../src/valueStore.js';

test('keys.json: slots, shards and companion keys', () => {
  const { cases } = vectors('keys.json');
  assert.ok(cases.length >= 10, 'keys.json has its cases');
  for (const c of cases) {
    const key = c.key;
    assert.equal(CacheKeys.slot(key), c.slot, `slot of ${key}`);
    assert.equal(AccessProtocol.shardOf(key), c.shard, `shard of ${key}`);
    assert.equal(CacheKeys.metaKey(key), c.metaKey, `metaKey of ${key}`);
    assert.equal(CacheKeys.lockName(key), c.lockName, `lockName of ${key}`);
    assert.equal(CacheKeys.flightLockName(key), c.flightLockName, `flightLockName of ${key}`);
    assert.equal(CacheKeys.slot(CacheKeys.metaKey(key)), CacheKeys.slot(key), `metaKey of ${key} in its slot`);
    assert.equal(CacheKeys.slot(CacheKeys.flightLockName(key)), CacheKeys.slot(key), `flight lock of ${key} in its slot`);
  }
});

test('buckets.json: seconds and bucket names', () => {
  const document = vectors('buckets.json');
  assert.equal(document.prefix, AccessProtocol.PREFIX);
  assert.equal(document.shards, AccessProtocol.SHARDS);
  assert.equal(document.bucketTtlSeconds, AccessProtocol.BUCKET_TTL_SECONDS);
  for (const c of document.cases) {
    const second = AccessProtocol.secondOf(c.epochMillis);
    assert.equal(second, c.second, `second of ${JSON.stringify(c)}`);
    assert.equal(AccessProtocol.bucketKey(c.shard, second), c.bucketKey, `bucket of ${JSON.stringify(c)}`);
  }
});

test('xfetch.json: XFetch decisions', () => {
  const { cases } = vectors('xfetch.json');
  assert.ok(cases.length > 100, 'xfetch.json has its cases');
  for (const c of cases) {
    const recompute = EarlyRecompute.decide(c.nowMillis, c.deltaMillis, c.expiresAtMillis, c.beta, c.uniform);
    assert.equal(recompute, c.recompute, `XFetch on ${JSON.stringify(c)}`);
  }
});

test('read-decisions.json: what get(key, {ttlMs, loader}) does with what it read', () => {
  const { cases } = vectors('read-decisions.json');
  assert.ok(cases.length >= 10, 'read-decisions.json has its cases');
  for (const c of cases) {
    const stored = new StoredValue(c.value, c.deltaMillis, c.expiresAtMillis, c.epoch, c.redisNowMillis);
    const decision = decide(stored, (now, delta, expiresAt) => EarlyRecompute.decide(now, delta, expiresAt, c.beta, c.uniform));
    assert.equal(decision, c.decision, `decision on ${JSON.stringify(c)}`);
  }
});

test('scripts.json: the same texts, byte for byte, and SHA-1s', () => {
  const { scripts } = vectors('scripts.json');
  assert.equal(scripts.length, Object.keys(SCRIPTS).length, 'as many scripts as the corpus');
  for (const script of scripts) {
    const mine = SCRIPTS[script.name];
    assert.ok(mine, `script ${script.name}`);
    assert.equal(mine.text, script.text, `text of ${script.name}`);
    assert.equal(mine.sha1, script.sha1, `SHA-1 of ${script.name}`);
    assert.equal(sha1Of(script.text), script.sha1, `the corpus's own SHA-1 of ${script.name}`);
  }
});

test('write-rule.json: the write rule on a real Redis', async () => {
  const document = vectors('write-rule.json');
  const admin = await connect();
  const store = new ValueStore(new NodeRedisDriver(await connect()));
  const key = document.key; // the files run one at a time (npm test), so no other test writes it meanwhile
  const meta = CacheKeys.metaKey(key);
  const { value, ttlMillis, deltaMillis } = document.write;
  assert.ok(document.cases.length >= 8, 'write-rule.json has its cases');
  for (const c of document.cases) {
    const name = c.name;
    await admin.del([key, meta]);
    const now = await redisMillis(admin);
    if (c.before.value !== null) {
      await admin.set(key, c.before.value);
    }
    for (const [field, v] of Object.entries(c.before.meta)) {
      await admin.hSet(meta, field, typeof v === 'object' ? String(now + v.fromNowMillis) : String(v));
    }
    if (c.before.metaPttlMillis !== null) {
      await admin.pExpire(meta, c.before.metaPttlMillis);
    }

    const written = await store.write(key, { value, ttlMillis, deltaMillis });

    assert.equal(written, c.written, `written: ${name}`);
    if (written) {
      assert.equal(await admin.get(key), value, `value: ${name}`);
      const pttl = await admin.pTTL(key);
      assert.ok(pttl > ttlMillis - 10_000 && pttl <= ttlMillis, `value's TTL ${pttl}: ${name}`);
      const computedAt = Number(await admin.hGet(meta, 'computedAt'));
      assert.ok(computedAt >= now && computedAt <= now + 10_000, `computedAt ${computedAt}, Redis's time ${now}: ${name}`);
      assert.equal(await admin.hGet(meta, 'expiresAt'), String(computedAt + ttlMillis), `expiresAt: ${name}`);
    } else {
      assert.equal(await admin.get(key), c.before.value, `value left: ${name}`);
    }
    for (const [field, v] of Object.entries(c.after.meta)) {
      assert.equal(await admin.hGet(meta, field), String(v), `${field} after: ${name}`);
    }
    for (const field of c.after.metaAbsent) {
      assert.equal(await admin.hGet(meta, field), null, `${field} gone: ${name}`);
    }
    if (c.after.metaPttlAtLeastMillis !== null) {
      assert.ok((await admin.pTTL(meta)) >= c.after.metaPttlAtLeastMillis, `metadata's TTL: ${name}`);
    }
  }
  await admin.del([key, meta]);
});
