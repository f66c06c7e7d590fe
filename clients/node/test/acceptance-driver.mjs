// The Node client as a separate process, for the Java integration tests (and test/acceptance.test.mjs).
// Not a test file: `npm test` runs test/*.test.mjs only.
//
//   node clients/node/test/acceptance-driver.mjs reads  --redis URL --key K --rate R --seconds S
//   node clients/node/test/acceptance-driver.mjs flight --redis URL --key K --callers N --ttl-ms T --value V --loader-ms D
//   node clients/node/test/acceptance-driver.mjs read   --redis URL --key K
//
// Prints one JSON line at the end: {"reads": n, "misses": m}, {"loads": n, "values": [...]} or
// {"value": v}. Exits 2 on a usage error, 1 on a failure (the message on stderr).
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'redis';
import { RefresherClient } from '../index.js';

const USAGE = 'usage: acceptance-driver.mjs reads|flight|read --redis URL --key K [--rate R --seconds S | --callers N --ttl-ms T --value V --loader-ms D]';

const { positionals, values: args } = parseArgs({
  allowPositionals: true,
  options: {
    redis: { type: 'string' },
    key: { type: 'string' },
    rate: { type: 'string' },
    seconds: { type: 'string' },
    callers: { type: 'string' },
    'ttl-ms': { type: 'string' },
    value: { type: 'string' },
    'loader-ms': { type: 'string' },
  },
});

function required(name) {
  if (args[name] === undefined) {
    usageError(`--${name} is required`);
  }
  return args[name];
}

function number(name) {
  const n = Number(required(name));
  if (!Number.isFinite(n) || n < 0) {
    usageError(`--${name} must be a non-negative number, was ${args[name]}`);
  }
  return n;
}

function usageError(message) {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

async function connected(url) {
  const redis = createClient({ url });
  redis.on('error', (err) => console.error(`redis: ${err}`));
  await redis.connect();
  return redis;
}

async function closeAll(clients, connections) {
  for (const client of clients) await client.close();
  for (const redis of connections) await redis.close();
}

/** R reads a second of one key for S seconds, paced to the schedule (not to each read's latency). */
async function reads() {
  const url = required('redis');
  const key = required('key');
  const rate = number('rate');
  const seconds = number('seconds');
  const redis = await connected(url);
  const client = new RefresherClient(redis);
  const total = Math.round(rate * seconds);
  const started = performance.now();
  let misses = 0;
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    if ((await client.get(key)) === null) misses++;
  }
  await closeAll([client], [redis]);
  return { reads: total, misses };
}

/** N callers, each on its own client and connection, so that only Redis's lock excludes them. */
async function flight() {
  const url = required('redis');
  const key = required('key');
  const callers = number('callers');
  const ttlMs = number('ttl-ms');
  const value = required('value');
  const loaderMs = number('loader-ms');
  const connections = await Promise.all(Array.from({ length: callers }, () => connected(url)));
  const clients = connections.map((redis) => new RefresherClient(redis));
  let loads = 0;
  const loader = async () => {
    loads++;
    await sleep(loaderMs);
    return value;
  };
  const values = await Promise.all(clients.map((client) => client.get(key, { ttlMs, loader })));
  await closeAll(clients, connections);
  return { loads, values };
}

async function read() {
  const redis = await connected(required('redis'));
  const client = new RefresherClient(redis);
  const value = await client.get(required('key'));
  await closeAll([client], [redis]);
  return { value };
}

const commands = { reads, flight, read };
const command = commands[positionals[0]];
if (positionals.length !== 1 || command === undefined) {
  usageError(`unknown command: ${positionals.join(' ') || '(none)'}`);
}
try {
  console.log(JSON.stringify(await command()));
} catch (err) {
  console.error(err?.stack ?? String(err));
  process.exit(1);
}
