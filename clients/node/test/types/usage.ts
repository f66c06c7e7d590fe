// Typed usage of refresher-client: `npm run typecheck` (tsc --noEmit) checks index.d.ts against
// real node-redis clients. Never run.
import { createClient, createCluster } from 'redis';
import {
  AccessCounter,
  AccessProtocol,
  CacheKeys,
  CommandTimeoutError,
  EarlyRecompute,
  MetaFields,
  RefresherClient,
  type RefresherClientOptions,
  type Stats,
} from 'refresher-client';

export async function usage(): Promise<void> {
  const redis = await createClient({ url: 'redis://localhost:6379' }).connect();
  const options: RefresherClientOptions = {
    flushIntervalMs: 1000,
    maxPendingKeys: 100_000,
    beta: 1,
    singleFlightLeaseMs: 10_000,
    waitForOtherLoaderMs: 1000,
    pollIntervalMs: 20,
    random: Math.random,
    clock: Date.now,
    logger: console,
    commandTimeoutMs: 5000,
  };
  const client = new RefresherClient(redis, options);

  const plain: string | null = await client.get('banner:home');
  const loaded: string | null = await client.get('product:42', { ttlMs: 60_000, loader: async () => '{"id":42}' });
  const syncLoaded: string | null = await client.get('product:43', { ttlMs: 60_000, loader: () => null });
  client.record('product:44');
  const complete: boolean = await client.flush();
  const stats: Stats = client.stats();
  const pending: number = stats.access.pendingKeys + stats.misses + stats.loaderRuns + stats.earlyRecomputations + stats.fallbacks + stats.degradedLoads;
  const failing: boolean = stats.access.failing;
  const unreported: number = await client.close();
  console.log(plain, loaded, syncLoaded, complete, pending, failing, unreported);

  // @ts-expect-error a loader returns a string or null
  await client.get('k', { ttlMs: 1, loader: () => 42 });
  // @ts-expect-error ttlMs is required with a loader
  await client.get('k', { loader: () => 'v' });

  const cluster = createCluster({ rootNodes: [{ url: 'redis://localhost:7000' }] });
  await cluster.connect();
  const onCluster = new RefresherClient(cluster, { cluster: true });
  await onCluster.close();

  const counter = new AccessCounter(redis, { flushIntervalMs: 500 });
  counter.record('k');
  const counted: number = counter.stats().recorded;
  await counter.close();

  const early: boolean = new EarlyRecompute(1.5).shouldRecompute(Date.now(), 50, Date.now() + 10);
  const decided: boolean = EarlyRecompute.decide(0, 50, 100, 1, 0.5);
  const names: string[] = [
    CacheKeys.metaKey('product:42'),
    CacheKeys.flightLockName('product:42'),
    AccessProtocol.bucketKey(AccessProtocol.shardOf('product:42'), AccessProtocol.secondOf(Date.now())),
    MetaFields.EXPIRES_AT,
  ];
  const failure: Error = new CommandTimeoutError(5000, 'EVALSHA');
  console.log(counted, early, decided, names, failure);
  await redis.close();
}
