/**
 * The few Redis operations the client needs (Java's RedisDriver), over the application's own
 * node-redis client: a RedisClient (createClient) or a RedisCluster (createCluster), v4 or v5.
 * Every call goes through sendCommand with raw arguments, so the client's own command
 * transformations, key prefixes or typings do not matter.
 *
 * Each call has a deadline (commandTimeoutMs), which node-redis itself does not give written
 * commands. When it passes, the call is aborted through node-redis's AbortSignal support:
 *  - a command still waiting to be written (offline queue, reconnecting) is taken out of the
 *    queue and rejected with AbortError: it was never sent and never will be (NOT_RUN);
 *  - a command already written cannot be taken back: the call fails with CommandTimeoutError
 *    and its late answer is ignored (UNKNOWN, Redis may run it).
 * node-redis never writes a command twice: a command written before a connection dropped is
 * rejected (SocketClosedUnexpectedlyError and friends), not written again after the reconnect,
 * and it retries no error reply except a cluster's MOVED/ASK (which mean "not run here").
 */
import { isNoScript, refusedWithoutRunning } from './errorReplies.js';
import { CallOutcome } from './callOutcome.js';

export const DEFAULT_COMMAND_TIMEOUT_MS = 5000;

/** A call's deadline passed after it was written: Redis may or may not have run it. */
export class CommandTimeoutError extends Error {
  constructor(timeoutMs, command) {
    super(`Redis did not answer ${command} within ${timeoutMs} ms`);
    this.name = 'CommandTimeoutError';
  }
}

/** Errors node-redis gives for a command it never wrote to the socket. */
const NEVER_SENT = new Set(['AbortError', 'ClientClosedError', 'ClientOfflineError']);

/** Whether err is a Redis error reply (node-redis's ErrorReply and its v5 subclasses). */
export function isErrorReply(err) {
  for (let proto = err; proto; proto = Object.getPrototypeOf(proto)) {
    if (proto.constructor && proto.constructor.name === 'ErrorReply') {
      return true;
    }
  }
  return false;
}

function errorName(err) {
  return err && (err.constructor?.name ?? err.name);
}

/** A call that failed: did Redis surely not run it, or may it have? */
export function outcomeOfFailure(err) {
  if (isErrorReply(err)) {
    return refusedWithoutRunning(err.message) ? CallOutcome.notRun(err) : CallOutcome.unknown(err);
  }
  if (NEVER_SENT.has(errorName(err)) || NEVER_SENT.has(err?.name) || err?.message === 'The queue is full') {
    return CallOutcome.notRun(err);
  }
  // Written, or maybe written, and never answered (timeout, socket closed, client destroyed).
  return CallOutcome.unknown(err);
}

/** Whether a client looks like a node-redis RedisCluster rather than a single-node RedisClient. */
function looksLikeCluster(redis) {
  return typeof redis.getSlotMaster === 'function' || ('masters' in redis && 'replicas' in redis && 'slots' in redis);
}

export class NodeRedisDriver {
  /**
   * @param {object} redis the application's connected node-redis client or cluster; never closed here
   * @param {{commandTimeoutMs?: number, cluster?: boolean}} [options]
   */
  constructor(redis, { commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS, cluster } = {}) {
    if (!redis || typeof redis.sendCommand !== 'function') {
      throw new TypeError('redis must be a node-redis client (createClient() or createCluster()), connected by the application');
    }
    if (!Number.isFinite(commandTimeoutMs) || commandTimeoutMs <= 0) {
      throw new RangeError(`commandTimeoutMs must be a positive number, was ${commandTimeoutMs}`);
    }
    this.redis = redis;
    this.commandTimeoutMs = commandTimeoutMs;
    this.cluster = cluster ?? looksLikeCluster(redis);
  }

  /** GET key; null when absent. */
  async get(key) {
    return text(await this.call(['GET', key], key, true));
  }

  /** SET key value NX PX leaseMs: whether this call set it. */
  async setIfAbsent(key, value, leaseMs) {
    const reply = await this.call(['SET', key, value, 'NX', 'PX', String(leaseMs)], key, false);
    return reply !== null && reply !== undefined;
  }

  /** Runs a script by EVALSHA, and by EVAL when Redis does not have it (NOSCRIPT: it did not run). */
  async eval(script, keys, args) {
    try {
      return await this.call(scriptCommand(script, keys, args, true), keys[0], script.readOnly);
    } catch (err) {
      if (isErrorReply(err) && isNoScript(err.message)) {
        return this.call(scriptCommand(script, keys, args, false), keys[0], script.readOnly);
      }
      throw err;
    }
  }

  /**
   * Runs one script call per element of calls ({keys, args}), all written together (node-redis
   * writes the commands of one tick in one go: one round trip per node), and says what became of
   * each: {kind: DONE | NOT_RUN | UNKNOWN, failure}. Never rejects. Calls a node answered NOSCRIPT
   * are sent again by EVAL: Redis did not run them.
   */
  async evalPipelined(script, calls) {
    const outcomes = await this.#sendAll(script, calls, true);
    const unknownScript = [];
    outcomes.forEach((outcome, i) => {
      if (outcome.failure && isErrorReply(outcome.failure) && isNoScript(outcome.failure.message)) {
        unknownScript.push(i);
      }
    });
    if (unknownScript.length > 0) {
      const second = await this.#sendAll(script, unknownScript.map((i) => calls[i]), false);
      unknownScript.forEach((i, j) => {
        outcomes[i] = second[j];
      });
    }
    return outcomes;
  }

  /** Whether a failure came from Redis or the connection, rather than a bug of ours. */
  isRedisFailure(err) {
    return !(err instanceof TypeError || err instanceof RangeError || err instanceof ReferenceError || err instanceof SyntaxError);
  }

  #sendAll(script, calls, bySha) {
    // Every call is handed to node-redis before the first await: they leave in one write.
    return Promise.all(
      calls.map((c) =>
        this.call(scriptCommand(script, c.keys, c.args, bySha), c.keys[0], script.readOnly).then(
          () => CallOutcome.done(),
          (err) => outcomeOfFailure(err),
        ),
      ),
    );
  }

  /**
   * One command, with the deadline described above. firstKey routes it on a cluster.
   * @returns {Promise<unknown>}
   */
  call(args, firstKey, readOnly) {
    const abort = new AbortController();
    let timer;
    const deadline = new Promise((_, reject) => {
      timer = setTimeout(() => {
        // Rejects a command not yet written with AbortError; a written one ignores the abort.
        // The deadline itself fails the call only a turn later, so that an AbortError, which
        // may pass through a few promise steps inside node-redis, settles the race first.
        try {
          abort.abort();
        } catch {
          // A library whose abort listener fails on a written command: the deadline decides.
        }
        setImmediate(() => reject(new CommandTimeoutError(this.commandTimeoutMs, args[0])));
      }, this.commandTimeoutMs);
    });
    let sent;
    try {
      sent = this.cluster
        ? this.redis.sendCommand(firstKey, readOnly, args, { abortSignal: abort.signal })
        : this.redis.sendCommand(args, { abortSignal: abort.signal });
    } catch (err) {
      // Some versions throw synchronously when the client is closed: nothing was sent.
      sent = Promise.reject(err);
    }
    return Promise.race([sent, deadline]).finally(() => clearTimeout(timer));
  }
}

function scriptCommand(script, keys, args, bySha) {
  return [bySha ? 'EVALSHA' : 'EVAL', bySha ? script.sha1 : script.text, String(keys.length), ...keys, ...args];
}

/** A bulk string reply as a string (a client mapping strings to Buffers still works), null as null. */
export function text(reply) {
  if (reply === null || reply === undefined) {
    return null;
  }
  return typeof reply === 'string' ? reply : reply.toString();
}
