// Connections to the test Redis, closed after each test file.
import { after } from 'node:test';
import { createClient } from 'redis';
import { redisUrl } from './env.mjs';

const opened = [];

after(async () => {
  for (const client of opened) {
    if (client.isOpen) {
      await (typeof client.close === "function" ? client.close() : client.quit());
    }
  }
});

/** A connected node-redis client of the test Redis (options merged into createClient's). */
export async function connect(options = {}) {
  const client = createClient({ url: redisUrl(), ...options });
  client.on('error', () => {}); // reconnects are part of some tests
  opened.push(client);
  await client.connect();
  return client;
}

/** Redis's clock, epoch ms. */
export async function redisMillis(client) {
  const [seconds, micros] = await client.sendCommand(['TIME']);
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** A key no other test uses. */
let serial = 0;
export function uniqueKey(prefix) {
  return `${prefix}:${process.pid}:${Date.now()}:${serial++}`;
}

export const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** A logger that keeps what it is told, by level. */
export function recordingLogger() {
  const lines = { debug: [], info: [], warn: [], error: [] };
  return {
    lines,
    debug: (...a) => lines.debug.push(a.join(' ')),
    info: (...a) => lines.info.push(a.join(' ')),
    warn: (...a) => lines.warn.push(a.join(' ')),
    error: (...a) => lines.error.push(a.join(' ')),
  };
}
