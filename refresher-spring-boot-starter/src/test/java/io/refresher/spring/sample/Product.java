package io.refresher.spring.sample;

import java.math.BigDecimal;
import java.util.List;

/** A product as the service's {@code product-by-id} source writes it: one row as a JSON object. */
public record Product(long id, String name, BigDecimal price, List<String> tags) {}
