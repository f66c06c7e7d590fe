/**
 * Adds read counts to the access buckets (protocol/accessProtocol.js), all shards in one
 * pipelined round trip: the ADD_COUNTS script once per shard (one bucket key, so one cluster slot)
 * and per at most MAX_FIELDS_PER_CALL keys, which HINCRBYs each pair and sets the bucket's TTL.
 *
 * At most once: a call is sent once, and a call whose outcome is unknown is never sent again.
 * Redis may have applied a call whose answer timed out or whose connection closed before the
 * answer; sending it again would count those reads twice. Its reads are reported as unconfirmed
 * instead; only a call Redis surely did not run (not connected, never written, an error reply it
 * gives instead of running) is kept for the next flush.
 */
import { BUCKET_TTL_SECONDS, bucketKey, secondOf, shardOf } from './protocol/accessProtocol.js';
import { ADD_COUNTS } from './scripts.js';
import { OutcomeKind } from './driver/callOutcome.js';

/** Fields per script call: keeps each call short, so Redis is never blocked for long. */
export const MAX_FIELDS_PER_CALL = 1000;

export class AccessBucketWriter {
  constructor(driver) {
    this.driver = driver;
  }

  /**
   * @param {Map<string, number>} counts
   * @param {number} nowMillis the clock naming the bucket's second
   * @returns {Promise<{written: number, unwritten: Map<string, number>, unconfirmed: number, error: unknown}>}
   *   written reads reached Redis; unwritten surely did not (kept for the next flush); unconfirmed
   *   were sent and their answer lost (not sent again); error says why the rest did not land
   */
  async write(counts, nowMillis) {
    const second = secondOf(nowMillis);
    const chunks = chunksByShard(counts);
    const calls = chunks.map((chunk) => ({ keys: [bucketKey(chunk.shard, second)], args: argumentsOf(chunk.counts) }));
    const outcomes = await this.driver.evalPipelined(ADD_COUNTS, calls);
    let written = 0;
    let unconfirmed = 0;
    const unwritten = new Map();
    let error = null;
    chunks.forEach((chunk, i) => {
      let reads = 0;
      for (const count of chunk.counts.values()) reads += count;
      const outcome = outcomes[i];
      if (outcome.kind === OutcomeKind.DONE) {
        written += reads;
      } else if (outcome.kind === OutcomeKind.NOT_RUN) {
        for (const [key, count] of chunk.counts) unwritten.set(key, count);
      } else {
        unconfirmed += reads;
      }
      if (error === null && outcome.failure) {
        error = outcome.failure;
      }
    });
    if ((unwritten.size > 0 || unconfirmed > 0) && error === null) {
      error = new Error('a pipelined access-count write did not complete');
    }
    return { written, unwritten, unconfirmed, error };
  }
}

/** The counts grouped by shard, each group cut into pieces of at most MAX_FIELDS_PER_CALL keys. */
function chunksByShard(counts) {
  /** @type {Map<number, {shard: number, counts: Map<string, number>}[]>} */
  const byShard = new Map();
  for (const [key, count] of counts) {
    const shard = shardOf(key);
    let shardChunks = byShard.get(shard);
    if (shardChunks === undefined) {
      shardChunks = [];
      byShard.set(shard, shardChunks);
    }
    let last = shardChunks[shardChunks.length - 1];
    if (last === undefined || last.counts.size >= MAX_FIELDS_PER_CALL) {
      last = { shard, counts: new Map() };
      shardChunks.push(last);
    }
    last.counts.set(key, count);
  }
  return [...byShard.values()].flat();
}

function argumentsOf(chunk) {
  const args = [String(BUCKET_TTL_SECONDS)];
  for (const [key, count] of chunk) {
    args.push(key, String(count));
  }
  return args;
}
