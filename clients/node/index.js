// refresher-client: the Node.js client of Refresher (docs/client/node.md).
export { RefresherClient } from './src/refresherClient.js';
export { AccessCounter } from './src/accessCounter.js';
export { EarlyRecompute } from './src/earlyRecompute.js';
export { CommandTimeoutError } from './src/driver/nodeRedisDriver.js';
export { MetaFields } from './src/protocol/metaFields.js';
export { NOT_FOUND_MARKER, isNotFound } from './src/protocol/notFound.js';
export * as AccessProtocol from './src/protocol/accessProtocol.js';
export * as CacheKeys from './src/protocol/cacheKeys.js';
