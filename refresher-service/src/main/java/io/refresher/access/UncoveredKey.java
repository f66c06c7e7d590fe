package io.refresher.access;

/**
 * A key read often enough to be hot that no registration or template covers: nothing computes it,
 * so it is not kept fresh.
 *
 * @param rate reads per second
 */
public record UncoveredKey(String key, double rate) {}
