package io.refresher.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-process half of single flight: concurrent callers for the same key share one future, so
 * that one thread per process works on a key and the others wait for its result.
 */
final class LocalFlights {

  /** One caller's place in a key's flight: the leader does the work, followers await it. */
  record Flight(String key, CompletableFuture<String> result, boolean leader) {}

  private final ConcurrentHashMap<String, CompletableFuture<String>> inFlight = new ConcurrentHashMap<>();

  Flight join(String key) {
    CompletableFuture<String> mine = new CompletableFuture<>();
    CompletableFuture<String> existing = inFlight.putIfAbsent(key, mine);
    return existing == null ? new Flight(key, mine, true) : new Flight(key, existing, false);
  }

  /** Ends the leader's flight. The flight leaves the map first, so later callers start afresh. */
  void land(Flight flight, String value) {
    inFlight.remove(flight.key(), flight.result());
    flight.result().complete(value);
  }

  void crash(Flight flight, Throwable failure) {
    inFlight.remove(flight.key(), flight.result());
    flight.result().completeExceptionally(failure);
  }

  /** The leader's value, or its failure rethrown as is (unchecked) in the follower's thread. */
  String await(Flight flight) {
    try {
      return flight.result().join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }
}
