// A TCP proxy in front of the test Redis that a test can cut and restore, to take a client's
// connection away (and keep it away: reconnects are refused) without touching Redis.
import net from 'node:net';
import { after } from 'node:test';
import { redisUrl } from './env.mjs';

const proxies = [];
after(() => proxies.forEach((p) => p.cut()));

export async function startProxy() {
  const target = new URL(redisUrl());
  const sockets = new Set();
  let server = null;
  let port = 0;
  const listen = () =>
    new Promise((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 6379), target.hostname);
        for (const [a, b] of [[client, upstream], [upstream, client]]) {
          sockets.add(a);
          a.on('error', () => b.destroy());
          a.on('close', () => {
            sockets.delete(a);
            b.destroy();
          });
          a.pipe(b);
        }
      });
      server.listen(port, '127.0.0.1', () => {
        port = server.address().port;
        resolve();
      });
    });
  await listen();
  const proxy = {
    url: () => `redis://127.0.0.1:${port}`,
    /** Closes every connection and refuses new ones. */
    cut() {
      server?.close();
      server = null;
      sockets.forEach((s) => s.destroy());
    },
    /** Accepts connections again, on the same port. */
    restore: listen,
  };
  proxies.push(proxy);
  return proxy;
}
