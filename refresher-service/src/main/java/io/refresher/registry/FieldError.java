package io.refresher.registry;

/**
 * One broken rule of a request.
 *
 * @param field the JSON path of the offending input ({@code ttl}, {@code params.id}, {@code key})
 * @param rule what the value must be, phrased for the operator reading the error
 */
public record FieldError(String field, String rule) {}
