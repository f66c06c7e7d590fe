package io.refresher.registry;

import io.refresher.failure.RegistryUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.refresher.source.ParamType;
import io.refresher.source.SourceCatalog;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TemplateCatalogTest {

  private static final Duration TTL = Duration.ofMinutes(10);
  private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant UPDATED = Instant.parse("2026-01-02T00:00:00Z");

  private final InMemoryTemplateRepository repository = new InMemoryTemplateRepository();
  private final TemplateCatalog catalog = new TemplateCatalog(repository, TestSources.catalog());

  private void store(String name, String pattern, String source, Map<String, Object> params) {
    repository.upsert(new KeyTemplate(name, TemplatePattern.parse(pattern), source, params, TTL, CREATED, UPDATED));
  }

  // ---------------------------------------------------------------------------------------------
  // What a resolved key looks like.

  @Test
  void resolve_matchingKey_hotRegistrationOfTheTemplateWithConvertedParams() {
    store("products", "product:{id}", "product-by-id", Map.of());
    catalog.reload();

    Optional<Registration> resolved = catalog.resolve("product:7");

    assertThat(resolved)
        .contains(
            new Registration(
                "product:7", "product-by-id", Map.of("id", 7L), TTL, CREATED, UPDATED, RefreshPolicy.HOT, "products"));
    assertThat(resolved.get().fromTemplate()).isTrue();
  }

  @Test
  void resolve_fixedParamsStoredAsJsonNumbers_mergedWithPlaceholdersInTheSourcesTypesAndOrder() {
    // Read back from JSON, a fixed double 10 arrives as the Integer 10; the source binds a double.
    store("by-category", "category:{category}", "products-in-category", Map.of("min_price", 10));
    catalog.reload();

    Registration registration = catalog.resolve("category:books").orElseThrow();

    assertThat(registration.params()).containsExactly(Map.entry("category", "books"), Map.entry("min_price", 10.0));
  }

  @Test
  void resolve_placeholderValuesOfEveryType_converted() {
    store("flags", "flag:{id}:{active}", "flagged", Map.of());
    catalog.reload();

    assertThat(catalog.resolve("flag:12:true").orElseThrow().params()).isEqualTo(Map.of("id", 12L, "active", true));
    assertThat(catalog.resolve("flag:12:yes")).as("not a boolean").isEmpty();
    assertThat(catalog.resolve("flag:1.5:true")).as("not a whole number").isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"product:abc", "product:7.5", "product:99999999999999999999", "product:true"})
  void resolve_placeholderValueNotOfTheParameterType_doesNotMatch(String key) {
    store("products", "product:{id}", "product-by-id", Map.of());
    catalog.reload();

    assertThat(catalog.resolve(key)).isEmpty();
  }

  @Test
  void resolve_keyNotOfAnyFamily_empty() {
    store("products", "product:{id}", "product-by-id", Map.of());
    catalog.reload();

    assertThat(catalog.resolve("order:7")).isEmpty();
    assertThat(catalog.resolve("product:7:reviews")).isEmpty();
    assertThat(catalog.resolve("")).isEmpty();
    assertThat(catalog.resolve(null)).isEmpty();
  }

  // ---------------------------------------------------------------------------------------------
  // Precedence.

  @Test
  void resolve_severalTemplatesMatch_theMostSpecificWinsAndTypeFailuresFallThrough() {
    store("generic", "{kind}:{id}", "thing", Map.of());
    store("products", "product:{id}", "product-by-id", Map.of());
    store("special", "product:special:{id}", "product-by-id", Map.of());
    catalog.reload();

    assertThat(catalog.resolve("product:7")).map(Registration::template).contains("products");
    assertThat(catalog.resolve("product:special:7")).map(Registration::template).contains("special");
    assertThat(catalog.resolve("order:7")).map(Registration::template).contains("generic");
    // "abc" is not a whole number, so products passes; generic takes it, with strings
    Registration fallThrough = catalog.resolve("product:abc").orElseThrow();
    assertThat(fallThrough.template()).isEqualTo("generic");
    assertThat(fallThrough.params()).isEqualTo(Map.of("kind", "product", "id", "abc"));
    assertThat(catalog.templates()).extracting(KeyTemplate::name).containsExactly("special", "products", "generic");
  }

  @Test
  void resolve_equallySpecificTemplates_theFirstByNameWins() {
    store("b-items", "item:{id}", "product-by-id", Map.of());
    store("a-items", "item:{kind}", "thing", Map.of("id", "x"));
    catalog.reload();

    assertThat(catalog.resolve("item:7")).map(Registration::template).contains("a-items");
    assertThat(catalog.templates()).extracting(KeyTemplate::name).containsExactly("a-items", "b-items");
  }

  @Test
  void resolve_moreSpecificTemplateWithShorterLiteralPrefix_stillWins() {
    // Candidates come from different depths of the prefix index; precedence, not prefix length, decides.
    store("short-prefix", "{kind}bcdef", "thing", Map.of("id", "x"));
    store("long-prefix", "a{kind}", "thing", Map.of("id", "y"));
    catalog.reload();

    Registration registration = catalog.resolve("abcdef").orElseThrow();

    assertThat(registration.template()).isEqualTo("short-prefix");
    assertThat(registration.params()).isEqualTo(Map.of("kind", "a", "id", "x"));
    assertThat(catalog.resolve("axyz")).map(Registration::template).contains("long-prefix");
  }

  @Test
  void resolve_hashTagPattern_resolves() {
    store("carts", "user:{{{id}}}:cart", "product-by-id", Map.of());
    catalog.reload();

    assertThat(catalog.resolve("user:{42}:cart").orElseThrow().params()).isEqualTo(Map.of("id", 42L));
    assertThat(catalog.resolve("user:42:cart")).isEmpty();
  }

  // ---------------------------------------------------------------------------------------------
  // Keys and templates that never resolve.

  @Test
  void resolve_keysBreakingTheKeyRules_neverResolveEvenWhenAPatternMatches() {
    store("generic", "{kind}:{id}", "thing", Map.of());
    catalog.reload();

    assertThat(catalog.resolve("order:7")).isPresent();
    assertThat(catalog.resolve("refresher:7")).as("reserved prefix").isEmpty();
    assertThat(catalog.resolve("order\u0001:7")).as("control character").isEmpty();
    assertThat(catalog.resolve("order:" + "€".repeat(171))).as("over 512 bytes").isEmpty();
  }

  @Test
  void reload_templateWhoseSourceIsNoLongerConfigured_ignoredOthersStillResolve() {
    store("gone", "gone:{id}", "removed-source", Map.of());
    store("products", "product:{id}", "product-by-id", Map.of());

    catalog.reload();

    assertThat(catalog.resolve("gone:7")).isEmpty();
    assertThat(catalog.resolve("product:7")).isPresent();
    assertThat(catalog.templates()).extracting(KeyTemplate::name).containsExactly("products");
  }

  @Test
  void reload_sourceWhoseParametersChangedSinceTheTemplateWasStored_templateIgnored() {
    store("products", "product:{id}", "product-by-id", Map.of());
    store("by-category", "category:{category}", "products-in-category", Map.of("min_price", 1.0));
    SourceCatalog changed =
        new SourceCatalog(
            List.of(
                TestSources.source("product-by-id", Map.of("id", ParamType.LONG, "shop", ParamType.LONG)),
                TestSources.source("products-in-category", Map.of("category", ParamType.STRING, "min_price", ParamType.BOOLEAN))));
    TemplateCatalog afterConfigChange = new TemplateCatalog(repository, changed);

    afterConfigChange.reload();

    assertThat(afterConfigChange.resolve("product:7")).as("a parameter the key cannot supply").isEmpty();
    assertThat(afterConfigChange.resolve("category:books")).as("a fixed parameter now of another type").isEmpty();
  }

  // ---------------------------------------------------------------------------------------------
  // Batches and reloads.

  @Test
  void resolveAll_batch_onlyTheKeysOfAFamilyByKey() {
    store("products", "product:{id}", "product-by-id", Map.of());
    store("by-category", "category:{category}", "products-in-category", Map.of("min_price", 0.0));
    catalog.reload();

    Map<String, Registration> resolved =
        catalog.resolveAll(List.of("product:1", "product:x", "category:books", "other", "product:2"));

    assertThat(resolved).containsOnlyKeys("product:1", "category:books", "product:2");
    assertThat(resolved.get("product:2").params()).isEqualTo(Map.of("id", 2L));
    assertThat(resolved.get("category:books").template()).isEqualTo("by-category");
  }

  @Test
  void reload_changesInTheRepository_visibleOnlyAfterAReload() {
    assertThat(catalog.resolve("product:7")).isEmpty();
    store("products", "product:{id}", "product-by-id", Map.of());
    assertThat(catalog.resolve("product:7")).as("before the reload").isEmpty();

    catalog.reload();
    assertThat(catalog.resolve("product:7")).isPresent();

    repository.delete("products");
    catalog.reload();
    assertThat(catalog.resolve("product:7")).isEmpty();
  }

  @Test
  void reload_repositoryUnavailable_throwsAndKeepsThePreviousSnapshot() {
    boolean[] down = {false};
    InMemoryTemplateRepository flaky =
        new InMemoryTemplateRepository() {
          @Override
          public synchronized List<KeyTemplate> all() {
            if (down[0]) {
              throw new RegistryUnavailableException("down", null);
            }
            return super.all();
          }
        };
    TemplateCatalog flakyCatalog = new TemplateCatalog(flaky, TestSources.catalog());
    flaky.upsert(new KeyTemplate("products", TemplatePattern.parse("product:{id}"), "product-by-id", Map.of(), TTL, CREATED, UPDATED));
    flakyCatalog.reload();
    flaky.delete("products");
    down[0] = true;

    assertThatThrownBy(flakyCatalog::reload).isInstanceOf(RegistryUnavailableException.class);
    assertThat(flakyCatalog.resolve("product:7")).as("the last snapshot read").isPresent();
  }
}
