// Where the tests find the conformance corpus and the test Redis.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The package's own directory (clients/node). */
export const PACKAGE_DIR = path.resolve(here, '..', '..');

/** protocol/vectors of the repository, or REFRESHER_VECTORS. */
export const VECTORS_DIR = process.env.REFRESHER_VECTORS
  ? path.resolve(process.env.REFRESHER_VECTORS)
  : path.resolve(here, '..', '..', '..', '..', 'protocol', 'vectors');

export function vectors(file) {
  return JSON.parse(readFileSync(path.join(VECTORS_DIR, file), 'utf8'));
}

/**
 * The test Redis's URL. Missing, the integration tests fail (never skip): CI sets it, and a
 * green run without it would hide that nothing was tested against Redis.
 */
export function redisUrl() {
  const url = process.env.REFRESHER_TEST_REDIS_URL;
  if (!url) {
    throw new Error(
      'REFRESHER_TEST_REDIS_URL is not set: the integration tests need a real Redis (6.2 or later), ' +
        'e.g. REFRESHER_TEST_REDIS_URL=redis://127.0.0.1:16392 npm test',
    );
  }
  return url;
}

/**
 * A node of the test Redis Cluster (three masters), for test/cluster.test.mjs. Missing, those
 * tests fail (never skip), for the same reason.
 */
export function redisClusterUrl() {
  const url = process.env.REFRESHER_TEST_REDIS_CLUSTER_URL;
  if (!url) {
    throw new Error(
      'REFRESHER_TEST_REDIS_CLUSTER_URL is not set: the cluster tests need a node of a real Redis Cluster ' +
        '(6.2 or later, several masters), e.g. REFRESHER_TEST_REDIS_CLUSTER_URL=redis://127.0.0.1:7000 npm test',
    );
  }
  return url;
}
