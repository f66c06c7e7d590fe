package io.refresher.registry;

import io.refresher.source.ParamType;
import io.refresher.source.ResultShape;
import io.refresher.source.SourceCatalog;
import io.refresher.source.SourceDefinition;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Sources like those of config-test.yml, for tests of templates. */
final class TestSources {

  private TestSources() {}

  static final SourceDefinition PRODUCT_BY_ID = source("product-by-id", Map.of("id", ParamType.LONG));
  static final SourceDefinition PRODUCTS_IN_CATEGORY =
      source("products-in-category", ordered("category", ParamType.STRING, "min_price", ParamType.DOUBLE));
  static final SourceDefinition COUNTED = source("counted", Map.of());
  /** Any kind of thing by a textual id: a catch-all source for catch-all patterns. */
  static final SourceDefinition THING = source("thing", ordered("kind", ParamType.STRING, "id", ParamType.STRING));
  static final SourceDefinition FLAGGED = source("flagged", ordered("id", ParamType.LONG, "active", ParamType.BOOLEAN));

  static SourceCatalog catalog() {
    return new SourceCatalog(List.of(PRODUCT_BY_ID, PRODUCTS_IN_CATEGORY, COUNTED, THING, FLAGGED));
  }

  static SourceDefinition source(String name, Map<String, ParamType> params) {
    return new SourceDefinition(name, "default", "SELECT 1", params, ResultShape.SCALAR, Duration.ofSeconds(2));
  }

  private static Map<String, ParamType> ordered(String a, ParamType typeA, String b, ParamType typeB) {
    Map<String, ParamType> params = new LinkedHashMap<>();
    params.put(a, typeA);
    params.put(b, typeB);
    return params;
  }
}
