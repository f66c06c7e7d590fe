// RefresherClient on a node-redis RedisCluster (createCluster) of a real Redis Cluster: single
// flight, counting across shards (so across nodes), scripts a node has forgotten (NOSCRIPT).
//
// Needs REFRESHER_TEST_REDIS_CLUSTER_URL, a node of a Redis Cluster (the Java test that runs this
// suite, NodeClientIT, starts three masters), and fails without it, never skips: a suite that
// silently skips proves nothing. The tests FLUSHALL that cluster.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createCluster } from 'redis';
import { redisClusterUrl } from './support/env.mjs';
import { recordingLogger, silentLogger } from './support/redis.mjs';
import { RefresherClient } from '../index.js';
import { flightLockName, metaKey } from '../src/protocol/cacheKeys.js';

const opened = [];

after(async () => {
  for (const cluster of opened) {
    if (cluster.isOpen) {
      await cluster.close();
    }
  }
});

/** A connected createCluster() client of the test cluster. */
async function connectCluster() {
  const cluster = createCluster({ rootNodes: [{ url: redisClusterUrl() }] });
  cluster.on('error', () => {});
  opened.push(cluster);
  await cluster.connect();
  return cluster;
}

/** The clients of every master. */
function masterClients(cluster) {
  return Promise.all(cluster.masters.map((master) => cluster.nodeClient(master)));
}

/** A connected cluster, emptied (data and scripts) on every master. */
async function emptyCluster() {
  const cluster = await connectCluster();
  assert.ok(cluster.masters.length > 1, `the test cluster has ${cluster.masters.length} master(s); these tests need several`);
  for (const node of await masterClients(cluster)) {
    await node.flushAll();
    await node.scriptFlush();
  }
  return cluster;
}

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

test('single flight, counting across shards and scripts on a cluster', async () => {
  const cluster = await emptyCluster();
  const logger = recordingLogger();
  // Not told it is a cluster: detected.
  const client = new RefresherClient(cluster, { flushIntervalMs: 60_000, logger });
  const key = 'user:{42}:cart';
  const loader = slowLoader('cart', 100);

  const values = await Promise.all(Array.from({ length: 8 }, () => client.get(key, { ttlMs: 60_000, loader })));
  for (let i = 0; i < 3000; i++) client.record(`k${i}`); // all 16 shards, on every master
  assert.equal(await client.flush(), true);

  for (const node of await masterClients(cluster)) {
    await node.scriptFlush();
  }
  assert.equal(await client.get(key, { ttlMs: 60_000, loader }), 'cart', 'read by EVAL after NOSCRIPT');
  client.record('after-script-flush');
  assert.equal(await client.flush(), true, 'NOSCRIPT on the node: sent again by EVAL');
  const stats = client.stats();
  assert.equal(await client.close(), 0);

  assert.deepEqual(values, Array(8).fill('cart'));
  assert.equal(loader.runs, 1);
  assert.equal(await cluster.get(key), 'cart');
  assert.equal(await cluster.hGet(metaKey(key), 'epoch'), '0');
  assert.equal(await cluster.exists(flightLockName(key)), 0, 'the flight lock is released');
  assert.deepEqual(
    { recorded: stats.access.recorded, flushed: stats.access.flushed, unconfirmed: stats.access.unconfirmed, flushFailures: stats.access.flushFailures },
    { recorded: 3010, flushed: 3010, unconfirmed: 0, flushFailures: 0 },
  );
  assert.deepEqual(logger.lines.warn, []);

  let total = 0;
  let mastersWithBuckets = 0;
  for (const node of await masterClients(cluster)) {
    const buckets = await node.keys('refresher:access:*');
    if (buckets.length > 0) mastersWithBuckets++;
    for (const bucket of buckets) {
      for (const count of await node.hVals(bucket)) total += Number(count);
    }
  }
  assert.equal(total, 3010, 'every read counted once, over all masters');
  assert.ok(mastersWithBuckets > 1, `the buckets sit on ${mastersWithBuckets} master(s): the flush did not span nodes`);
});

test('two clients on separate cluster connections: the loader runs once (the lock sits on the key\'s node)', async () => {
  await emptyCluster();
  const first = new RefresherClient(await connectCluster(), { cluster: true, flushIntervalMs: 60_000, logger: silentLogger });
  const second = new RefresherClient(await connectCluster(), { cluster: true, flushIntervalMs: 60_000, logger: silentLogger });
  const key = 'product:{7}:page';
  const loader = slowLoader('shared', 200);

  const values = await Promise.all(
    Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? first : second).get(key, { ttlMs: 60_000, loader })),
  );

  assert.deepEqual(values, Array(8).fill('shared'));
  assert.equal(loader.runs, 1);
  assert.equal(first.stats().fallbacks + second.stats().fallbacks, 0);
  assert.equal(first.stats().degradedLoads + second.stats().degradedLoads, 0);
  assert.equal(await first.close(), 0);
  assert.equal(await second.close(), 0);
});
