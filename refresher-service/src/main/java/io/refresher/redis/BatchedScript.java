package io.refresher.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.api.BatchResult;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisException;
import org.redisson.client.RedisRetryException;
import org.redisson.client.RedisTimeoutException;

/**
 * One Lua script run for many keys at once: concurrent single-key requests (a lock, a value write)
 * that arrive while the previous request of this script is on the wire are sent together as the
 * next one. At low load a request goes out at once (nothing waits for a batch to fill); under load
 * (all of the few batches allowed on the wire at once are out) the batches grow by themselves, so the number of Redis requests per refresh falls towards the
 * number of refreshes per round trip.
 *
 * <p>The script takes its items' {@code KEYS} and {@code ARGV} in groups of a fixed width, and
 * answers a flat list with a fixed number of entries per item. On a standalone Redis one script
 * call carries the whole batch. On a Redis Cluster a script may only touch one slot, so each item
 * is its own call, and the batch is a pipeline ({@link RBatch}): still one round trip, but one
 * command per item.
 *
 * <p>A few batches are on the wire at once (so a request rarely waits a whole round trip for a
 * batch to leave), each bounded in items and bytes: a script blocks Redis while it runs, so a batch
 * is kept to about a millisecond of Redis time, which readers of the cache would otherwise wait
 * for.
 *
 * <p>Failure semantics: a connection failure or a timeout fails every item of the batch (the
 * caller sees {@link RedisException}, as for a single call). A script error (an item whose key
 * holds the wrong type, say) is retried item by item, so one bad key never fails the others.
 *
 * @param <T> an item: one key's request
 * @param <R> one item's answer
 */
final class BatchedScript<T, R> {

  /** How a request becomes script arguments, and its part of the reply an answer. */
  interface Shape<T, R> {
    /** A key of the item, to route the call (all keys of one item share a slot). */
    String routingKey(T item);

    /** Appends the item's KEYS (always {@link #keysPerItem()} of them). */
    void keys(T item, List<Object> into);

    /** Appends the item's ARGV (always the same number per item). */
    void args(T item, List<Object> into);

    /** About how many bytes the item sends (bounds a batch's size). */
    int weight(T item);

    /** Entries of the reply per item. */
    int replyWidth();

    /** The item's answer from the reply entries at {@code offset}. */
    R parse(List<?> reply, int offset);
  }

  private record Pending<T, R>(T item, CompletableFuture<R> answer) {}

  private final RedissonClient redisson;
  private final boolean cluster;
  private final String script;
  private final Shape<T, R> shape;
  private final int maxItems;
  private final int maxBytes;
  private final Duration maxWait;
  private final ConcurrentLinkedQueue<Pending<T, R>> queue = new ConcurrentLinkedQueue<>();
  /** Batches on the wire now, at most {@link #maxInFlight}. */
  private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
  private final int maxInFlight;
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong items = new AtomicLong();

  /**
   * @param cluster whether Redis is a cluster (one call per item, pipelined)
   * @param maxItems most items in one batch
   * @param maxBytes most bytes (by {@link Shape#weight}) in one batch; a larger item goes alone
   * @param maxInFlight most batches on the wire at once: a request waits for a batch only when
   *     that many are out, so at low load it goes at once, and under load batches form
   * @param maxWait longest a caller waits for its answer; longer than Redisson's own timeouts, so
   *     it only matters if a reply never comes
   */
  BatchedScript(
      RedissonClient redisson,
      boolean cluster,
      String script,
      Shape<T, R> shape,
      int maxItems,
      int maxBytes,
      int maxInFlight,
      Duration maxWait) {
    this.maxInFlight = maxInFlight;
    this.redisson = redisson;
    this.cluster = cluster;
    this.script = script;
    this.shape = shape;
    this.maxItems = maxItems;
    this.maxBytes = maxBytes;
    this.maxWait = maxWait;
  }

  /** Sends the item with the next batch; the answer completes when Redis has answered. */
  CompletableFuture<R> submit(T item) {
    CompletableFuture<R> answer = new CompletableFuture<>();
    queue.add(new Pending<>(item, answer));
    drain();
    return answer;
  }

  /**
   * Sends the item and waits for its answer.
   *
   * @throws RedisException when Redis could not be reached or answered with an error
   */
  R call(T item) {
    return await(submit(item));
  }

  /**
   * Queues every item before sending, so that they leave together (a batch of up to the batch
   * limit each) instead of the first alone.
   */
  List<CompletableFuture<R>> submitAll(List<T> items) {
    List<CompletableFuture<R>> answers = new ArrayList<>(items.size());
    for (T item : items) {
      CompletableFuture<R> answer = new CompletableFuture<>();
      queue.add(new Pending<>(item, answer));
      answers.add(answer);
    }
    drain();
    return answers;
  }

  /**
   * Waits for an answer of {@link #submit} or {@link #submitAll}.
   *
   * @throws RedisException when Redis could not be reached or answered with an error
   */
  R await(CompletableFuture<R> answer) {
    try {
      return answer.get(maxWait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw asRedisException(e.getCause());
    } catch (TimeoutException e) {
      throw new RedisTimeoutException("no reply within " + maxWait.toMillis() + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RedisException("interrupted while waiting for Redis", e);
    }
  }

  /** Script calls sent so far (one per batch on a standalone Redis). */
  long requests() {
    return requests.get();
  }

  /** Items waiting for a batch (for tests). */
  int queued() {
    return queue.size();
  }

  /** Items sent so far. */
  long items() {
    return items.get();
  }

  /**
   * Sends what is queued while fewer than {@code maxInFlight} batches are on the wire (a batch's
   * completion sends the rest). A request queued after a completing batch looked at the queue
   * finds a free slot and sends itself, so nothing is left behind.
   */
  private void drain() {
    while (!queue.isEmpty()) {
      int out = inFlight.get();
      if (out >= maxInFlight) {
        return;
      }
      if (!inFlight.compareAndSet(out, out + 1)) {
        continue;
      }
      List<Pending<T, R>> batch = take();
      if (batch.isEmpty()) {
        inFlight.decrementAndGet();
        continue;
      }
      CompletionStage<Void> sent;
      try {
        sent = send(batch);
      } catch (RuntimeException e) {
        sent = CompletableFuture.failedFuture(e);
      }
      sent.toCompletableFuture()
          .orTimeout(maxWait.toMillis(), TimeUnit.MILLISECONDS)
          .whenComplete(
              (ignored, error) -> {
                if (error != null) {
                  RedisException failure = asRedisException(error);
                  batch.forEach(pending -> pending.answer().completeExceptionally(failure));
                }
                inFlight.decrementAndGet();
                drain();
              });
    }
  }

  /**
   * The next batch from the head of the queue. Synchronized: with several batches on the wire,
   * several threads take at once, and a peek followed by a poll must see the same item (else one
   * item goes in two batches and the next in none, its caller waiting for a reply that never
   * comes).
   */
  private synchronized List<Pending<T, R>> take() {
    List<Pending<T, R>> batch = new ArrayList<>();
    int bytes = 0;
    Pending<T, R> next;
    while (batch.size() < maxItems && (next = queue.peek()) != null) {
      int weight = shape.weight(next.item());
      if (!batch.isEmpty() && bytes + weight > maxBytes) {
        break;
      }
      queue.poll();
      batch.add(next);
      bytes += weight;
    }
    return batch;
  }

  /** Sends one batch; completes each item's answer on success. */
  private CompletionStage<Void> send(List<Pending<T, R>> batch) {
    requests.addAndGet(cluster ? batch.size() : 1);
    items.addAndGet(batch.size());
    if (cluster && batch.size() > 1) {
      return sendPipelined(batch, false);
    }
    List<Object> keys = new ArrayList<>(batch.size() * 4);
    List<Object> args = new ArrayList<>(batch.size() * 12);
    for (Pending<T, R> pending : batch) {
      shape.keys(pending.item(), keys);
      shape.args(pending.item(), args);
    }
    // A single call falls back from EVALSHA to EVAL by itself when Redis lost its script cache.
    return redisson
        .getScript(UnpooledStringCodec.INSTANCE)
        .<List<?>>evalAsync(
            shape.routingKey(batch.get(0).item()),
            RScript.Mode.READ_WRITE,
            script,
            RScript.ReturnType.MULTI,
            keys,
            args.toArray())
        .handle(
            (reply, error) -> {
              if (error != null) {
                if (batch.size() > 1 && isScriptError(error)) {
                  // One item's key may hold something the script cannot handle: send each alone.
                  batch.forEach(this::sendAlone);
                  return null;
                }
                throw new CompletionException(error);
              }
              answer(batch, reply);
              return null;
            });
  }

  /**
   * One call per item, pipelined (Redis Cluster). A pipeline is sent as EVALSHA when Redisson
   * believes the node has the script; after a node restarted empty on the same address it has
   * not, and the pipeline is sent once more after loading it.
   */
  private CompletionStage<Void> sendPipelined(List<Pending<T, R>> batch, boolean reloaded) {
    RBatch pipeline = redisson.createBatch();
    for (Pending<T, R> pending : batch) {
      List<Object> keys = new ArrayList<>(4);
      List<Object> args = new ArrayList<>(12);
      shape.keys(pending.item(), keys);
      shape.args(pending.item(), args);
      pipeline
          .getScript(UnpooledStringCodec.INSTANCE)
          .evalAsync(
              shape.routingKey(pending.item()),
              RScript.Mode.READ_WRITE,
              script,
              RScript.ReturnType.MULTI,
              keys,
              args.toArray());
    }
    return pipeline
        .executeAsync()
        .handle(
            (BatchResult<?> result, Throwable error) -> {
              if (error == null) {
                List<?> responses = result.getResponses();
                for (int i = 0; i < batch.size(); i++) {
                  answer(List.of(batch.get(i)), (List<?>) responses.get(i));
                }
                return CompletableFuture.<Void>completedFuture(null);
              }
              if (!reloaded && isNoScript(error)) {
                return loadScriptEverywhere().thenCompose(loaded -> sendPipelined(batch, true));
              }
              if (isScriptError(error)) {
                batch.forEach(this::sendAlone);
                return CompletableFuture.<Void>completedFuture(null);
              }
              return CompletableFuture.<Void>failedFuture(error);
            })
        .thenCompose(next -> next);
  }

  private CompletionStage<String> loadScriptEverywhere() {
    return redisson.getScript(UnpooledStringCodec.INSTANCE).scriptLoadAsync(script);
  }

  /** Sends one item by itself, outside the batching (the retry of a batch that failed as a whole). */
  private void sendAlone(Pending<T, R> pending) {
    List<Object> keys = new ArrayList<>(4);
    List<Object> args = new ArrayList<>(12);
    shape.keys(pending.item(), keys);
    shape.args(pending.item(), args);
    requests.incrementAndGet();
    redisson
        .getScript(UnpooledStringCodec.INSTANCE)
        .<List<?>>evalAsync(
            shape.routingKey(pending.item()),
            RScript.Mode.READ_WRITE,
            script,
            RScript.ReturnType.MULTI,
            keys,
            args.toArray())
        .whenComplete(
            (reply, error) -> {
              if (error != null) {
                pending.answer().completeExceptionally(asRedisException(error));
              } else {
                answer(List.of(pending), reply);
              }
            });
  }

  private void answer(List<Pending<T, R>> batch, List<?> reply) {
    int width = shape.replyWidth();
    for (int i = 0; i < batch.size(); i++) {
      Pending<T, R> pending = batch.get(i);
      try {
        pending.answer().complete(shape.parse(reply, i * width));
      } catch (RuntimeException e) {
        pending.answer().completeExceptionally(new RedisException("unexpected script reply " + reply, e));
      }
    }
  }

  /** An error Redis answered about the script or a key (as opposed to no answer at all). */
  private static boolean isScriptError(Throwable error) {
    Throwable cause = unwrap(error);
    return cause instanceof RedisException
        && !(cause instanceof RedisConnectionException
            || cause instanceof RedisTimeoutException
            || cause instanceof RedisRetryException)
        && !isNoScript(cause);
  }

  private static boolean isNoScript(Throwable error) {
    return String.valueOf(unwrap(error).getMessage()).contains("NOSCRIPT");
  }

  private static Throwable unwrap(Throwable error) {
    Throwable cause = error;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  private static RedisException asRedisException(Throwable error) {
    Throwable cause = unwrap(error);
    if (cause instanceof RedisException redis) {
      return redis;
    }
    if (cause instanceof TimeoutException) {
      return new RedisTimeoutException("no reply in time: " + cause.getMessage());
    }
    return new RedisException(String.valueOf(cause.getMessage()), cause);
  }
}
