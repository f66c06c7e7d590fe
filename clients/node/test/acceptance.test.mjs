// Runs each command of test/acceptance-driver.mjs as a subprocess, as the Java integration test does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { connect, uniqueKey } from './support/redis.mjs';
import { redisUrl } from './support/env.mjs';
import { bucketKey, secondOf, shardOf } from '../src/protocol/accessProtocol.js';

const DRIVER = fileURLToPath(new URL('./acceptance-driver.mjs', import.meta.url));
const run = promisify(execFile);

/** The driver's one JSON line. */
async function driver(...args) {
  const { stdout } = await run(process.execPath, [DRIVER, ...args], { timeout: 30_000 });
  const lines = stdout.trim().split('\n');
  assert.equal(lines.length, 1, `one line: ${stdout}`);
  return JSON.parse(lines[0]);
}

test('reads: paced reads of one key, counted in Redis', async () => {
  const admin = await connect();
  const url = redisUrl();
  const key = uniqueKey('acceptance:reads');
  await admin.set(key, 'x');
  const started = Date.now();
  const result = await driver('reads', '--redis', url, '--key', key, '--rate', '20', '--seconds', '1');
  const ended = Date.now();
  assert.deepEqual(result, { reads: 20, misses: 0 });
  assert.ok(ended - started >= 900, 'paced over about a second');
  let counted = 0;
  for (let s = secondOf(started); s <= secondOf(ended); s++) {
    counted += Number((await admin.hGet(bucketKey(shardOf(key), s), key)) ?? 0);
  }
  assert.equal(counted, 20, 'every read reported once');

  const missing = await driver('reads', '--redis', url, '--key', uniqueKey('acceptance:none'), '--rate', '10', '--seconds', '0.3');
  assert.deepEqual(missing, { reads: 3, misses: 3 });
});

test('flight: callers on separate connections, one loader run', async () => {
  const key = uniqueKey('acceptance:flight');
  const result = await driver('flight', '--redis', redisUrl(), '--key', key, '--callers', '6', '--ttl-ms', '60000', '--value', 'V1', '--loader-ms', '200');
  assert.deepEqual(result, { loads: 1, values: Array(6).fill('V1') });
  assert.deepEqual(await driver('read', '--redis', redisUrl(), '--key', key), { value: 'V1' });
});

test('read: null for a missing key; a usage error exits 2', async () => {
  assert.deepEqual(await driver('read', '--redis', redisUrl(), '--key', uniqueKey('acceptance:missing')), { value: null });
  await assert.rejects(run(process.execPath, [DRIVER, 'nonsense']), (err) => err.code === 2);
});
