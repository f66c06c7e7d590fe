package io.refresher.registry;

import io.refresher.failure.RegistryUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class TemplatesTest {

  private static final Duration TTL = Duration.ofMinutes(10);
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private final InMemoryTemplateRepository repository = new InMemoryTemplateRepository();
  private final AtomicReference<Instant> now = new AtomicReference<>(T0);
  private final TemplateCatalog catalog = new TemplateCatalog(repository, TestSources.catalog());
  private final Templates templates =
      new Templates(
          repository,
          new RegistrationValidator(TestSources.catalog(), RegistrationLimits.DEFAULT),
          TestSources.catalog(),
          catalog,
          now::get);

  // ---------------------------------------------------------------------------------------------
  // Storing.

  @Test
  void put_newTemplate_createdWithConvertedFixedParamsAndClockTimes() {
    Templates.Stored stored =
        templates.put("by-category", "category:{category}", "products-in-category", Map.of("min_price", "9.5"), TTL);

    assertThat(stored.created()).isTrue();
    KeyTemplate template = stored.template();
    assertThat(template.name()).isEqualTo("by-category");
    assertThat(template.pattern().text()).isEqualTo("category:{category}");
    assertThat(template.source()).isEqualTo("products-in-category");
    assertThat(template.params()).isEqualTo(Map.of("min_price", 9.5));
    assertThat(template.ttl()).isEqualTo(TTL);
    assertThat(template.createdAt()).isEqualTo(T0);
    assertThat(template.updatedAt()).isEqualTo(T0);
    assertThat(templates.get("by-category")).isEqualTo(template);
  }

  @Test
  void put_paramsOmittedWhenThePatternSuppliesThemAll_accepted() {
    Templates.Stored stored = templates.put("products", "product:{id}", "product-by-id", null, TTL);

    assertThat(stored.template().params()).isEmpty();
  }

  @Test
  void put_existingName_replacedKeepingCreationTime() {
    templates.put("products", "product:{id}", "product-by-id", Map.of(), TTL);
    now.set(T0.plusSeconds(60));

    Templates.Stored stored = templates.put("products", "item:{id}", "product-by-id", Map.of(), Duration.ofMinutes(5));

    assertThat(stored.created()).isFalse();
    assertThat(stored.template().pattern().text()).isEqualTo("item:{id}");
    assertThat(stored.template().ttl()).isEqualTo(Duration.ofMinutes(5));
    assertThat(stored.template().createdAt()).isEqualTo(T0);
    assertThat(stored.template().updatedAt()).isEqualTo(T0.plusSeconds(60));
  }

  @Test
  void put_sameNameSamePattern_isAReplacementNotAPatternConflict() {
    templates.put("products", "product:{id}", "product-by-id", Map.of(), TTL);

    assertThat(templates.put("products", "product:{id}", "product-by-id", Map.of(), Duration.ofMinutes(1)).created())
        .isFalse();
  }

  @Test
  void put_andDelete_visibleToKeyResolutionAtOnce() {
    assertThat(catalog.resolve("product:7")).isEmpty();

    templates.put("products", "product:{id}", "product-by-id", Map.of(), TTL);
    assertThat(catalog.resolve("product:7")).map(Registration::template).contains("products");

    templates.put("products", "item:{id}", "product-by-id", Map.of(), TTL);
    assertThat(catalog.resolve("product:7")).isEmpty();
    assertThat(catalog.resolve("item:7")).isPresent();

    templates.delete("products");
    assertThat(catalog.resolve("item:7")).isEmpty();
  }

  @Test
  void put_catalogReloadFailsAfterTheChangeIsStored_changeStandsAndIsReported() {
    FailingReads failing = new FailingReads();
    TemplateCatalog failingCatalog = new TemplateCatalog(failing, TestSources.catalog());
    Templates service =
        new Templates(
            failing,
            new RegistrationValidator(TestSources.catalog(), RegistrationLimits.DEFAULT),
            TestSources.catalog(),
            failingCatalog,
            now::get);

    Templates.Stored stored = service.put("products", "product:{id}", "product-by-id", Map.of(), TTL);

    assertThat(stored.created()).isTrue();
    assertThat(failing.find("products")).isPresent();
  }

  // ---------------------------------------------------------------------------------------------
  // Validation: every rule, all at once, and nothing stored.

  @Test
  void put_everythingWrong_everyBrokenRuleReportedAndNothingStored() {
    InvalidRegistrationException e =
        catchThrowableOfType(
            () -> templates.put("Bad Name", "refresher:{a}{b}", "no-such-source", Map.of(), Duration.ofMillis(10)),
            InvalidRegistrationException.class);

    assertThat(e.errors()).extracting(FieldError::field).contains("name", "pattern", "source", "ttl");
    assertThat(e.errors())
        .filteredOn(error -> error.field().equals("pattern"))
        .extracting(FieldError::rule)
        .anySatisfy(rule -> assertThat(rule).contains("'refresher:'"))
        .anySatisfy(rule -> assertThat(rule).contains("adjacent"));
    assertThat(repository.upserts).isZero();
  }

  @Test
  void put_placeholderNotAParameterOfTheSource_namedWithWhatTheSourceTakes() {
    InvalidRegistrationException e =
        catchThrowableOfType(
            () -> templates.put("products", "product:{sku}", "product-by-id", Map.of(), TTL),
            InvalidRegistrationException.class);

    assertThat(e.errors())
        .contains(new FieldError("pattern", "placeholder {sku} is not a parameter of source 'product-by-id' (it takes [id])"))
        .contains(new FieldError("params.id", "is required by source 'product-by-id' (a whole number)"));
    assertThat(repository.upserts).isZero();
  }

  @Test
  void put_placeholderForSourceWithoutParameters_refused() {
    InvalidRegistrationException e =
        catchThrowableOfType(
            () -> templates.put("counted", "counted:{n}", "counted", Map.of(), TTL), InvalidRegistrationException.class);

    assertThat(e.errors())
        .containsExactly(new FieldError("pattern", "placeholder {n} is not a parameter of source 'counted' (it takes [])"));
  }

  @Test
  void put_placeholderAlsoGivenInParams_refused() {
    InvalidRegistrationException e =
        catchThrowableOfType(
            () -> templates.put("products", "product:{id}", "product-by-id", Map.of("id", 7), TTL),
            InvalidRegistrationException.class);

    assertThat(e.errors()).extracting(FieldError::field).containsExactly("params.id");
    assertThat(e.errors().get(0).rule()).contains("{id}").contains("must not be given");
  }

  @Test
  void put_fixedParamMissingOrOfWrongTypeOrUnknown_eachRefused() {
    InvalidRegistrationException missing =
        catchThrowableOfType(
            () -> templates.put("c", "category:{category}", "products-in-category", Map.of(), TTL),
            InvalidRegistrationException.class);
    InvalidRegistrationException wrongType =
        catchThrowableOfType(
            () -> templates.put("c", "category:{category}", "products-in-category", Map.of("min_price", "cheap"), TTL),
            InvalidRegistrationException.class);
    InvalidRegistrationException unknown =
        catchThrowableOfType(
            () -> templates.put("c", "category:{category}", "products-in-category", Map.of("min_price", 1, "x", 2), TTL),
            InvalidRegistrationException.class);

    assertThat(missing.errors()).extracting(FieldError::field).containsExactly("params.min_price");
    assertThat(wrongType.errors()).containsExactly(new FieldError("params.min_price", "must be a finite number"));
    assertThat(unknown.errors()).extracting(FieldError::field).containsExactly("params.x");
    assertThat(repository.upserts).isZero();
  }

  @Test
  void put_brokenPattern_noGuessedRequiredParameterErrors() {
    // The pattern is unreadable, so whether it would supply "id" is unknown: only the pattern is wrong.
    InvalidRegistrationException e =
        catchThrowableOfType(
            () -> templates.put("products", "product:{id", "product-by-id", Map.of(), TTL),
            InvalidRegistrationException.class);

    assertThat(e.errors()).extracting(FieldError::field).containsOnly("pattern");
  }

  @Test
  void put_brokenPatternWithReadablePlaceholders_theyAreStillChecked() {
    InvalidRegistrationException e =
        catchThrowableOfType(
            () -> templates.put("c", "category:{category}{sku}", "products-in-category", Map.of("category", "x"), TTL),
            InvalidRegistrationException.class);

    assertThat(e.errors())
        .extracting(FieldError::field, FieldError::rule)
        .anySatisfy(pair -> assertThat(pair.toList()).containsExactly("pattern", "placeholder {sku} is not a parameter of source 'products-in-category' (it takes [category, min_price])"))
        .anySatisfy(pair -> assertThat(pair.toList().get(0)).isEqualTo("params.category"));
    assertThat(e.errors()).extracting(FieldError::field).doesNotContain("params.min_price");
  }

  @Test
  void put_missingSourceAndTtl_bothRequired() {
    InvalidRegistrationException e =
        catchThrowableOfType(
            () -> templates.put("products", "product:{id}", null, Map.of(), null), InvalidRegistrationException.class);

    assertThat(e.errors()).extracting(FieldError::field).containsExactlyInAnyOrder("source", "ttl");
  }

  @Test
  void put_patternOfAnotherTemplate_refusedNamingIt() {
    templates.put("products", "product:{id}", "product-by-id", Map.of(), TTL);

    InvalidRegistrationException e =
        catchThrowableOfType(
            () -> templates.put("products-again", "product:{id}", "product-by-id", Map.of(), TTL),
            InvalidRegistrationException.class);

    assertThat(e.errors()).containsExactly(new FieldError("pattern", "is already the pattern of template 'products'"));
    assertThat(repository.count()).isEqualTo(1);
  }

  @Test
  void put_theThousandAndFirstTemplate_refusedButReplacingStillAllowed() {
    for (int i = 0; i < Templates.MAX_TEMPLATES; i++) {
      repository.upsert(
          new KeyTemplate(
              "t" + i, TemplatePattern.parse("t" + i + ":{id}"), "product-by-id", Map.of(), TTL, T0, T0));
    }

    InvalidRegistrationException e =
        catchThrowableOfType(
            () -> templates.put("one-more", "more:{id}", "product-by-id", Map.of(), TTL),
            InvalidRegistrationException.class);

    assertThat(e.errors()).extracting(FieldError::field).containsExactly("name");
    assertThat(e.errors().get(0).rule()).contains("1000");
    assertThat(repository.find("one-more")).isEmpty();
    assertThat(templates.put("t5", "five:{id}", "product-by-id", Map.of(), TTL).created()).isFalse();
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"Products", "-products", ".x", "_x", "a b", "a/b", "a;b", "a:b", "é", "products!"})
  void put_invalidName_refusedNamingName(String name) {
    InvalidRegistrationException e =
        catchThrowableOfType(
            () -> templates.put(name, "product:{id}", "product-by-id", Map.of(), TTL), InvalidRegistrationException.class);

    assertThat(e.errors()).extracting(FieldError::field).containsExactly("name");
    assertThat(repository.upserts).isZero();
  }

  @Test
  void put_nameOf65Characters_refused() {
    assertThatThrownBy(() -> templates.put("a".repeat(65), "product:{id}", "product-by-id", Map.of(), TTL))
        .isInstanceOf(InvalidRegistrationException.class)
        .hasMessageContaining("name must be 1 to 64 characters");
  }

  @ParameterizedTest
  @ValueSource(strings = {"a", "0", "products", "products.v2", "by_id-2", "9lives"})
  void put_validName_accepted(String name) {
    assertThat(templates.put(name, "product:{id}", "product-by-id", Map.of(), TTL).created()).isTrue();
  }

  @Test
  void put_nameOf64Characters_accepted() {
    assertThat(templates.put("a".repeat(64), "product:{id}", "product-by-id", Map.of(), TTL).created()).isTrue();
  }

  // ---------------------------------------------------------------------------------------------
  // Reading, listing, deleting.

  @Test
  void get_unknown_templateNotFound() {
    assertThatThrownBy(() -> templates.get("nope"))
        .isInstanceOf(TemplateNotFoundException.class)
        .hasMessage("template 'nope' does not exist");
  }

  @Test
  void page_inNameOrderAfterTheGivenName() {
    for (String name : List.of("c", "a", "b", "d")) {
      templates.put(name, name + ":{id}", "product-by-id", Map.of(), TTL);
    }

    assertThat(templates.page(null, 2)).extracting(KeyTemplate::name).containsExactly("a", "b");
    assertThat(templates.page("b", 2)).extracting(KeyTemplate::name).containsExactly("c", "d");
    assertThat(templates.page("d", 2)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, 1001})
  void page_limitOutOfRange_refusedNamingLimit(int limit) {
    InvalidRegistrationException e =
        catchThrowableOfType(() -> templates.page("", limit), InvalidRegistrationException.class);

    assertThat(e.errors()).containsExactly(new FieldError("limit", "must be between 1 and 1000"));
  }

  @Test
  void delete_unknown_templateNotFound() {
    assertThatThrownBy(() -> templates.delete("nope")).isInstanceOf(TemplateNotFoundException.class);
  }

  @Test
  void delete_existing_gone() {
    templates.put("products", "product:{id}", "product-by-id", Map.of(), TTL);

    templates.delete("products");

    assertThatThrownBy(() -> templates.get("products")).isInstanceOf(TemplateNotFoundException.class);
  }

  /** Stores, but fails every full read: the catalog cannot reload after a change. */
  private static final class FailingReads implements TemplateRepository {
    private final Map<String, KeyTemplate> stored = new HashMap<>();

    @Override
    public Templates.Stored upsert(KeyTemplate template) {
      return new Templates.Stored(template, stored.put(template.name(), template) == null);
    }

    @Override
    public java.util.Optional<KeyTemplate> find(String name) {
      return java.util.Optional.ofNullable(stored.get(name));
    }

    @Override
    public java.util.Optional<KeyTemplate> findByPattern(String pattern) {
      return java.util.Optional.empty();
    }

    @Override
    public List<KeyTemplate> page(String after, int limit) {
      return List.of();
    }

    @Override
    public boolean delete(String name) {
      return stored.remove(name) != null;
    }

    @Override
    public List<KeyTemplate> all() {
      throw new RegistryUnavailableException("database down", null);
    }

    @Override
    public long count() {
      return stored.size();
    }
  }
}
