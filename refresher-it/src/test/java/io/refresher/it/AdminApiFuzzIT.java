package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import io.refresher.api.OpenApiDocument;
import io.refresher.registry.RegistrationLimits;
import io.refresher.it.FuzzInputs.Body;
import io.refresher.it.FuzzInputs.Encoding;
import io.refresher.it.FuzzInputs.PatternChoice;
import io.refresher.it.FuzzInputs.Token;
import io.refresher.it.FuzzInputs.Transfer;
import io.refresher.it.FuzzRules.Registration;
import io.refresher.it.FuzzRules.Template;
import io.refresher.testing.OpenApiContract;
import io.refresher.testing.RawHttp;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.Path;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.Transformer;

/**
 * The admin API under hostile input: jqwik generates sessions of requests against one running
 * service (real Redis and PostgreSQL) and checks every answer against a model of what the
 * documentation says must happen.
 *
 * <p>Requests go over a raw socket ({@link RawHttp}), byte for byte as generated: keys with
 * Unicode, control characters, slashes and dots, encoded and raw, the reserved prefix, 100 KB; JSON
 * bodies drawn from the OpenAPI document's schemas and the listed sources, then mutated (fields
 * missing, extra, duplicated, of the wrong type, 100 KB strings, hostile text; truncated, trailing
 * data, comments, a BOM, invalid UTF-8, bodies at, over and ten times over the cap, chunked or not,
 * a Content-Length shorter than the body); wrong content types, wrong and missing tokens, odd
 * methods (PATCH, TRACE, OPTIONS, CONNECT, HEAD, an unknown one); templates too.
 *
 * <p>Every answer must come within {@link #HANG} (the socket's read timeout) and be a 2xx, or a 4xx
 * whose body is the document's ApiError with the status as its code, as {@code application/json};
 * never a 5xx. The model ({@link Model}: key → registration, name → template) changes only when a
 * request keeps every documented rule ({@link FuzzRules}, which reads the rules from the OpenAPI
 * document, never from the service's validators), and then the answer must be exactly the one the
 * document gives (201 or 200, 204, the listing page). After each session the registry, read through
 * the paged listings, holds exactly what the model says.
 *
 * <p>200 sessions of 40 requests, 8,000 in all, take about 30 s on the 2-core machine; the class
 * prints how many requests got which status, by operation, when it is done. A failing session is
 * shrunk (for 10 s at most) and printed with its requests; jqwik tries it first on the next run.
 */
class AdminApiFuzzIT {

  private static final TestApp APP =
      TestApp.create(
          "api_fuzz",
          List.of(
              "CREATE TABLE test_product (id bigint primary key, name text, price numeric, category text, tags text[])",
              "INSERT INTO test_product VALUES (1, 'Laptop', 999.90, 'electronics', ARRAY['portable']), (42, 'Book', 12.5, 'books', ARRAY['paper'])"),
          // Every registration is refreshed at once; later refreshes would only add load here.
          "refresh.ttr.initial", "1m",
          "refresh.ttr.min", "1m",
          "refresh.ttr.max", "5m",
          "admin.readToken", FuzzInputs.READ_TOKEN);

  /** No answer within this long is a hang. */
  private static final Duration HANG = Duration.ofSeconds(10);

  /** admin.maxBodySize, at its default. */
  private static final long MAX_BODY = 1024 * 1024;

  /** URIs longer than this may meet the server's header limit (414) before any rule. */
  private static final int LONG_URI = 6000;

  /**
   * The sources registrations use: those whose refresh, which runs at once on every registration,
   * is quick ({@code slow}, {@code sleepy} and {@code tunable} take their time, {@code switchable}
   * reads a table this test has not).
   */
  private static final Set<String> QUICK_SOURCES = Set.of("counted", "product-by-id", "products-in-category", "stamped");

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Stats STATS = new Stats();

  private static OpenApiContract contract;
  private static FuzzRules rules;

  @BeforeContainer
  static void start() throws Exception {
    APP.extension().before();
    Reply document = send(Call.plain("GET", "/v1/openapi.json"), false);
    assertThat(document.status()).as(document.body()).isEqualTo(200);
    contract = OpenApiContract.parse(document.body());
    Reply listed = send(Call.plain("GET", "/v1/sources"), false);
    Map<String, Map<String, String>> sources = new TreeMap<>();
    for (JsonNode source : json(listed).path("sources")) {
      Map<String, String> params = new TreeMap<>();
      source.path("params").properties().forEach(param -> params.put(param.getKey(), param.getValue().asText()));
      sources.put(source.path("name").asText(), params);
    }
    assertThat(sources).containsKeys(QUICK_SOURCES.toArray(String[]::new));
    rules = new FuzzRules(contract, sources);
  }

  @AfterContainer
  static void stop() {
    System.out.println(STATS.summary());
    APP.extension().after();
  }

  // ---------------------------------------------------------------------------------------------

  @Example
  void openApiDocument_onlyWithTheToken() {
    Reply without = send(Call.plain("GET", "/v1/openapi.json").withToken(new Token(null, false, "none")), false);
    Reply with = send(Call.plain("GET", "/v1/openapi.json"), false);

    assertThat(without.status()).isEqualTo(401);
    assertThat(without.contentType()).startsWith("application/json");
    assertThat(with.status()).isEqualTo(200);
    assertThat(with.contentType()).startsWith("application/json");
    assertThat(json(with)).isEqualTo(read(OpenApiDocument.json(RegistrationLimits.DEFAULT_MAX_PARAM_LENGTH)));
  }

  @Example
  void openApiDocument_describesEveryResourceTheServiceRuns() {
    Set<Class<?>> running = new HashSet<>();
    var jersey = APP.extension().getEnvironment().jersey().getResourceConfig();
    jersey.getClasses().forEach(running::add);
    jersey.getSingletons().forEach(singleton -> running.add(singleton.getClass()));
    Set<String> resources =
        running.stream().filter(type -> type.isAnnotationPresent(Path.class)).map(Class::getName).collect(Collectors.toCollection(TreeSet::new));

    assertThat(resources).isEqualTo(OpenApiDocument.RESOURCES.stream().map(Class::getName).collect(Collectors.toCollection(TreeSet::new)));
  }

  // Edge cases off: jqwik would mix in the first and last of every choice far more often than weighted.
  @Property(tries = 200, shrinking = ShrinkingMode.BOUNDED, edgeCases = EdgeCasesMode.NONE)
  void adminApi_hostileRequests_answer2xxOr4xxJsonAndTheRegistryIsTheModel(@ForAll("sessions") ActionChain<Model> session) {
    Model end = session.run();

    assertRegistryIs(end);
    STATS.sessions++;
  }

  @Provide
  Arbitrary<ActionChain<Model>> sessions() {
    return ActionChain.startWith(AdminApiFuzzIT::freshModel)
        .withAction(12, new PutKey())
        .withAction(4, new GetKey())
        .withAction(4, new DeleteKey())
        .withAction(1, new RefreshKey())
        .withAction(2, new ListKeys())
        .withAction(3, new PutTemplate())
        .withAction(1, new GetTemplate())
        .withAction(1, new DeleteTemplate())
        .withAction(1, new ListTemplates())
        .withAction(2, new GetTemplateKey())
        .withAction(3, new OddRequest())
        .withMaxTransformations(40);
  }

  // ---------------------------------------------------------------------------------------------
  // The model.

  /** What the registry must hold: registrations by key, templates by name. */
  static final class Model {
    final Map<String, Registration> keys = new TreeMap<>();
    final Map<String, Template> templates = new TreeMap<>();

    /** The template that covers {@code key}, if one in the model does. */
    Optional<String> templateCovering(String key) {
      for (Map.Entry<String, Template> template : templates.entrySet()) {
        if (covers(template.getValue().pattern(), key)) {
          return Optional.of(template.getKey());
        }
      }
      return Optional.empty();
    }

    @Override
    public String toString() {
      return keys.size() + " keys, " + templates.size() + " templates";
    }
  }

  /** The menu's patterns the documented rules accept, each as literal prefix, placeholder type, literal suffix. */
  private static final Map<String, String[]> MENU =
      Map.of(
          FuzzInputs.TEMPLATE_PREFIX + "{id}", new String[] {FuzzInputs.TEMPLATE_PREFIX, "long", ""},
          FuzzInputs.TEMPLATE_PREFIX + "p:{id}", new String[] {FuzzInputs.TEMPLATE_PREFIX + "p:", "long", ""},
          FuzzInputs.TEMPLATE_PREFIX + "c:{category}", new String[] {FuzzInputs.TEMPLATE_PREFIX + "c:", "string", ""},
          FuzzInputs.TEMPLATE_PREFIX + "{{{id}}}", new String[] {FuzzInputs.TEMPLATE_PREFIX + "{", "long", "}"});

  /**
   * Whether a pattern of the test's menu matches {@code key}, as the README says: a placeholder is
   * one or more characters other than {@code : / { }}, and its text converts to its parameter's type.
   */
  static boolean covers(String pattern, String key) {
    String[] parts = MENU.get(pattern);
    String prefix = parts[0];
    String suffix = parts[2];
    if (!key.startsWith(prefix) || !key.endsWith(suffix) || key.length() <= prefix.length() + suffix.length()) {
      return false;
    }
    String value = key.substring(prefix.length(), key.length() - suffix.length());
    if (value.chars().anyMatch(c -> ":/{}".indexOf(c) >= 0)) {
      return false;
    }
    return FuzzRules.convert(parts[1], TextNode.valueOf(value)).isPresent();
  }

  /** Each session starts from an empty registry: whatever the last one left is deleted through the API. */
  private static Model freshModel() {
    for (String key : listAll("/v1/keys", "key").keySet()) {
      Reply deleted = send(Call.plain("DELETE", "/v1/keys/" + TestApp.pathOf(key)), false);
      assertThat(deleted.status()).as("cleaning up %s: %s", key, deleted.body()).isEqualTo(204);
    }
    for (String name : listAll("/v1/templates", "name").keySet()) {
      Reply deleted = send(Call.plain("DELETE", "/v1/templates/" + TestApp.pathOf(name)), false);
      assertThat(deleted.status()).as("cleaning up %s: %s", name, deleted.body()).isEqualTo(204);
    }
    return new Model();
  }

  private static void assertRegistryIs(Model model) {
    Map<String, Registration> keys = new TreeMap<>();
    listAll("/v1/keys", "key").forEach((key, item) -> keys.put(key, registrationOf(item)));
    Map<String, Template> templates = new TreeMap<>();
    listAll("/v1/templates", "name").forEach((name, item) -> templates.put(name, templateOf(item)));

    assertThat(keys).as("registrations after the session (model: %s)", model).isEqualTo(model.keys);
    assertThat(templates).as("templates after the session").isEqualTo(model.templates);
  }

  /** Every item of a paged listing, by {@code id}, following {@code next}. */
  private static Map<String, JsonNode> listAll(String path, String id) {
    Map<String, JsonNode> items = new LinkedHashMap<>();
    String after = "";
    do {
      Reply page = send(Call.plain("GET", path + "?limit=1000&after=" + query(after)), false);
      assertThat(page.status()).as(page.body()).isEqualTo(200);
      JsonNode body = json(page);
      body.path("items").forEach(item -> items.put(item.path(id).asText(), item));
      after = body.path("next").isNull() ? null : body.path("next").asText();
    } while (after != null);
    return items;
  }

  private static Registration registrationOf(JsonNode item) {
    return new Registration(item.path("source").asText(), paramsOf(item), item.path("ttl").asText(), item.path("policy").asText());
  }

  private static Template templateOf(JsonNode item) {
    return new Template(item.path("pattern").asText(), item.path("source").asText(), paramsOf(item), item.path("ttl").asText());
  }

  private static Map<String, String> paramsOf(JsonNode item) {
    Map<String, String> params = new TreeMap<>();
    item.path("params").properties().forEach(param -> params.put(param.getKey(), FuzzRules.stored(param.getValue())));
    return params;
  }

  // ---------------------------------------------------------------------------------------------
  // Actions.

  private static final Arbitrary<Token> TOKENS = FuzzInputs.tokens();

  /** {@code PUT /v1/keys/{key}}: a body drawn from the document, often mutated; a new key, or one to replace. */
  static final class PutKey implements Action.Dependent<Model> {
    @Override
    public Arbitrary<Transformer<Model>> transformer(Model state) {
      Map<String, Map<String, String>> sources = quickSources();
      Arbitrary<Body> bodies = FuzzInputs.bodies(FuzzInputs.registration(sources), MAX_BODY);
      Arbitrary<String> keys =
          state.keys.isEmpty()
              ? FuzzInputs.keys()
              : Arbitraries.frequencyOf(tuple(1, Arbitraries.of(List.copyOf(state.keys.keySet()))), tuple(2, FuzzInputs.keys()));
      return Combinators.combine(keys, FuzzInputs.encodings(), TOKENS, FuzzInputs.contentTypes(), bodies)
          .as((key, encoding, token, types, body) -> {
            Call call = new Call("PUT", "/v1/keys/" + FuzzInputs.path(key, encoding), token, types, body);
            return Transformer.mutate(call.describe(), model -> putKey(model, key, encoding, call));
          });
    }
  }

  private static void putKey(Model model, String key, Encoding encoding, Call call) {
    Expect expect = preconditions(call);
    Optional<Registration> registration = Optional.empty();
    if (expect == null) {
      Optional<JsonNode> body = FuzzRules.strictJson(call.body().asRead());
      registration = body.flatMap(json -> FuzzInputs.addressesExactly(key, encoding) ? rules.registration(key, json) : Optional.empty());
      expect = registration.isEmpty() ? Expect.clientError() : Expect.exactly(model.keys.containsKey(key) ? 200 : 201);
      if (call.token().readOnly()) {
        registration = Optional.empty();
        expect = Expect.exactly(403); // before the body is read
      }
    }
    Reply reply = check(call, expect, "PUT", "/v1/keys/{key}");
    if (registration.isPresent()) {
      JsonNode stored = json(reply).path("registration");
      assertThat(stored.path("key").asText()).as("registered key of %s", call.describe()).isEqualTo(key);
      assertThat(registrationOf(stored)).as("registration of %s", call.describe()).isEqualTo(registration.get());
      model.keys.put(key, registration.get());
    }
  }

  /** {@code GET /v1/keys/{key}}: mostly a key the model holds. */
  static final class GetKey implements Action.Dependent<Model> {
    @Override
    public Arbitrary<Transformer<Model>> transformer(Model state) {
      return Combinators.combine(keyOf(state), FuzzInputs.encodings(), TOKENS)
          .as((key, encoding, token) -> {
            Call call = Call.plain("GET", "/v1/keys/" + FuzzInputs.path(key, encoding)).withToken(token);
            return Transformer.mutate(call.describe(), model -> getKey(model, key, encoding, call));
          });
    }
  }

  private static void getKey(Model model, String key, Encoding encoding, Call call) {
    Expect expect = preconditions(call);
    boolean registered = model.keys.containsKey(key);
    Optional<String> template = registered ? Optional.empty() : model.templateCovering(key);
    if (expect == null) {
      boolean found = (registered || template.isPresent()) && FuzzInputs.addressesExactly(key, encoding);
      expect = found ? Expect.exactly(200) : Expect.clientError();
    }
    Reply reply = check(call, expect, "GET", "/v1/keys/{key}");
    if (reply.status() == 200) {
      JsonNode view = json(reply);
      assertThat(view.path("key").asText()).isEqualTo(key);
      if (registered) {
        assertThat(registrationOf(view)).isEqualTo(model.keys.get(key));
      } else {
        assertThat(view.path("template").asText()).isEqualTo(template.orElseThrow());
      }
    }
  }

  /** {@code DELETE /v1/keys/{key}}, with an evict parameter or not. */
  static final class DeleteKey implements Action.Dependent<Model> {
    @Override
    public Arbitrary<Transformer<Model>> transformer(Model state) {
      Arbitrary<String> evict = Arbitraries.of("", "?evict=true", "?evict=false", "?evict=TRUE", "?evict=maybe", "?evict=", "?evict=1");
      return Combinators.combine(keyOf(state), FuzzInputs.encodings(), TOKENS, evict)
          .as((key, encoding, token, query) -> {
            Call call = Call.plain("DELETE", "/v1/keys/" + FuzzInputs.path(key, encoding) + query).withToken(token);
            return Transformer.mutate(call.describe(), model -> deleteKey(model, key, encoding, call));
          });
    }
  }

  private static void deleteKey(Model model, String key, Encoding encoding, Call call) {
    Expect expect = preconditions(call);
    boolean deletes = expect == null && model.keys.containsKey(key) && FuzzInputs.addressesExactly(key, encoding);
    if (expect == null) {
      expect = deletes ? Expect.exactly(204) : Expect.clientError();
      if (call.token().readOnly()) {
        deletes = false;
        expect = Expect.exactly(403);
      }
    }
    check(call, expect, "DELETE", "/v1/keys/{key}");
    if (deletes) {
      model.keys.remove(key);
    }
  }

  /** {@code POST /v1/keys/{key}/refresh}. */
  static final class RefreshKey implements Action.Dependent<Model> {
    @Override
    public Arbitrary<Transformer<Model>> transformer(Model state) {
      return Combinators.combine(keyOf(state), FuzzInputs.encodings(), TOKENS)
          .as((key, encoding, token) -> {
            Call call = new Call("POST", "/v1/keys/" + FuzzInputs.path(key, encoding) + "/refresh", token, List.of(), null);
            return Transformer.mutate(call.describe(), model -> {
              Expect expect = preconditions(call);
              if (expect == null) {
                boolean found = (model.keys.containsKey(key) || model.templateCovering(key).isPresent())
                    && FuzzInputs.addressesExactly(key, encoding);
                expect = call.token().readOnly() ? Expect.exactly(403) : found ? Expect.exactly(200) : Expect.clientError();
              }
              check(call, expect, "POST", "/v1/keys/{key}/refresh");
            });
          });
    }
  }

  /** {@code GET /v1/keys?prefix&after&limit}: the page must be exactly the model's. */
  static final class ListKeys implements Action.Dependent<Model> {
    @Override
    public Arbitrary<Transformer<Model>> transformer(Model state) {
      List<String> known = new ArrayList<>(state.keys.keySet());
      Arbitrary<String> texts = Arbitraries.frequencyOf(
          tuple(4, Arbitraries.of("", "fz", "fz:", "pfx_", "pfx%", "a/", "ü", "%", "_", "\\", "\u0000", "€")),
          tuple(known.isEmpty() ? 0 : 4, known.isEmpty() ? Arbitraries.just("") : Arbitraries.of(known).map(key -> key.substring(0, key.offsetByCodePoints(0, key.codePointCount(0, key.length()) / 2)))),
          tuple(known.isEmpty() ? 0 : 2, known.isEmpty() ? Arbitraries.just("") : Arbitraries.of(known)),
          // a lone surrogate cannot be written in a URL (URLEncoder sends '?')
          tuple(1, Arbitraries.strings().ofMaxLength(4).filter(text -> !FuzzRules.hasLoneSurrogate(text))));
      Arbitrary<String> limits = Arbitraries.of("1", "2", "3", "5", "100", "1000", "0", "1001", "-1", "abc", "", "1.5", "99999999999");
      return Combinators.combine(texts, texts, limits, TOKENS)
          .as((prefix, after, limit, token) -> {
            Call call = Call.plain("GET", "/v1/keys?prefix=" + query(prefix) + "&after=" + query(after) + "&limit=" + query(limit)).withToken(token);
            return Transformer.mutate(call.describe(), model -> {
              Expect expect = preconditions(call);
              Optional<Integer> size = pageSize(limit);
              boolean valid = size.isPresent() && FuzzRules.storable(prefix) && FuzzRules.storable(after);
              if (expect == null) {
                expect = valid ? Expect.exactly(200) : Expect.clientError();
              }
              Reply reply = check(call, expect, "GET", "/v1/keys");
              if (reply.status() == 200) {
                List<String> page =
                    model.keys.keySet().stream()
                        .filter(key -> key.startsWith(prefix) && BYTES.compare(key, after) > 0)
                        .sorted(BYTES)
                        .limit(size.orElseThrow())
                        .toList();
                JsonNode body = json(reply);
                List<String> listed = new ArrayList<>();
                body.path("items").forEach(item -> listed.add(item.path("key").asText()));
                assertThat(listed).as("page of %s", call.describe()).isEqualTo(page);
                String next = page.size() == size.get() ? page.get(page.size() - 1) : null;
                assertThat(body.path("next").isNull() ? null : body.path("next").asText()).as("next of %s", call.describe()).isEqualTo(next);
              }
            });
          });
    }
  }

  /** {@code PUT /v1/templates/{name}}: a template of the test's menu, often mutated. */
  static final class PutTemplate implements Action.Dependent<Model> {
    @Override
    public Arbitrary<Transformer<Model>> transformer(Model state) {
      Arbitrary<Body> bodies = FuzzInputs.bodies(FuzzInputs.template(rules.sources()), MAX_BODY);
      return Combinators.combine(nameOf(state), TOKENS, FuzzInputs.contentTypes(), bodies)
          .as((name, token, types, body) -> {
            Call call = new Call("PUT", "/v1/templates/" + TestApp.pathOf(name), token, types, body);
            return Transformer.mutate(call.describe(), model -> putTemplate(model, name, call));
          });
    }
  }

  private static void putTemplate(Model model, String name, Call call) {
    Expect expect = preconditions(call);
    Optional<Template> template = Optional.empty();
    if (expect == null) {
      Optional<JsonNode> body = FuzzRules.strictJson(call.body().asRead());
      template = body.flatMap(json -> rules.template(name, json, placeholders(json.path("pattern").asText())))
          .filter(candidate -> model.templates.entrySet().stream()
              .noneMatch(other -> !other.getKey().equals(name) && other.getValue().pattern().equals(candidate.pattern())));
      expect = template.isEmpty() ? Expect.clientError() : Expect.exactly(model.templates.containsKey(name) ? 200 : 201);
      if (call.token().readOnly()) {
        template = Optional.empty();
        expect = Expect.exactly(403);
      }
    }
    Reply reply = check(call, expect, "PUT", "/v1/templates/{name}");
    if (template.isPresent()) {
      assertThat(templateOf(json(reply).path("template"))).as("template of %s", call.describe()).isEqualTo(template.get());
      model.templates.put(name, template.get());
    }
  }

  /** The placeholders of a pattern of the menu the documented rules accept; null for any other text. */
  private static Set<String> placeholders(String pattern) {
    for (PatternChoice choice : FuzzInputs.PATTERNS) {
      if (choice.pattern().equals(pattern)) {
        return choice.placeholders();
      }
    }
    return null;
  }

  static final class GetTemplate implements Action.Dependent<Model> {
    @Override
    public Arbitrary<Transformer<Model>> transformer(Model state) {
      return Combinators.combine(nameOf(state), TOKENS)
          .as((name, token) -> {
            Call call = Call.plain("GET", "/v1/templates/" + TestApp.pathOf(name)).withToken(token);
            return Transformer.mutate(call.describe(), model -> {
              Expect expect = preconditions(call);
              if (expect == null) {
                expect = model.templates.containsKey(name) ? Expect.exactly(200) : Expect.clientError();
              }
              Reply reply = check(call, expect, "GET", "/v1/templates/{name}");
              if (reply.status() == 200) {
                assertThat(templateOf(json(reply))).isEqualTo(model.templates.get(name));
              }
            });
          });
    }
  }

  static final class DeleteTemplate implements Action.Dependent<Model> {
    @Override
    public Arbitrary<Transformer<Model>> transformer(Model state) {
      return Combinators.combine(nameOf(state), TOKENS)
          .as((name, token) -> {
            Call call = Call.plain("DELETE", "/v1/templates/" + TestApp.pathOf(name)).withToken(token);
            return Transformer.mutate(call.describe(), model -> {
              Expect expect = preconditions(call);
              boolean deletes = expect == null && model.templates.containsKey(name) && !token.readOnly();
              if (expect == null) {
                expect = token.readOnly() ? Expect.exactly(403) : deletes ? Expect.exactly(204) : Expect.clientError();
              }
              check(call, expect, "DELETE", "/v1/templates/{name}");
              if (deletes) {
                model.templates.remove(name);
              }
            });
          });
    }
  }

  static final class ListTemplates implements Action.Independent<Model> {
    @Override
    public Arbitrary<Transformer<Model>> transformer() {
      Arbitrary<String> after = Arbitraries.of("", "fz", "fz-a", "fz-b", "t", "\u0000", "zzz");
      Arbitrary<String> limits = Arbitraries.of("1", "2", "100", "1000", "0", "1001", "x");
      return Combinators.combine(after, limits, TOKENS)
          .as((from, limit, token) -> {
            Call call = Call.plain("GET", "/v1/templates?after=" + query(from) + "&limit=" + query(limit)).withToken(token);
            return Transformer.mutate(call.describe(), model -> {
              Expect expect = preconditions(call);
              Optional<Integer> size = pageSize(limit);
              if (expect == null) {
                expect = size.isPresent() && FuzzRules.storable(from) ? Expect.exactly(200) : Expect.clientError();
              }
              Reply reply = check(call, expect, "GET", "/v1/templates");
              if (reply.status() == 200) {
                List<String> page =
                    model.templates.keySet().stream().filter(name -> BYTES.compare(name, from) > 0).sorted(BYTES).limit(size.orElseThrow()).toList();
                List<String> listed = new ArrayList<>();
                json(reply).path("items").forEach(item -> listed.add(item.path("name").asText()));
                assertThat(listed).as("page of %s", call.describe()).isEqualTo(page);
              }
            });
          });
    }
  }

  /** {@code GET /v1/keys/{key}} of keys the menu's templates may cover. */
  static final class GetTemplateKey implements Action.Independent<Model> {
    @Override
    public Arbitrary<Transformer<Model>> transformer() {
      String p = FuzzInputs.TEMPLATE_PREFIX;
      Arbitrary<String> keys =
          Arbitraries.of(p + "1", p + "42", p + "-3", p + "abc", p + "p:7", p + "p:x", p + "c:books", p + "c:a b", p + "{5}", p + "{x}",
              p + "99999999999999999999", p, p + "p:", p + "1/2", p + " 7");
      return Combinators.combine(keys, TOKENS)
          .as((key, token) -> {
            Call call = Call.plain("GET", "/v1/keys/" + TestApp.pathOf(key)).withToken(token);
            return Transformer.mutate(call.describe(), model -> getKey(model, key, Encoding.FULL, call));
          });
    }
  }

  /** Methods the API does not take, on paths it has and has not: answered 2xx or 4xx, and nothing changes. */
  static final class OddRequest implements Action.Independent<Model> {
    @Override
    public Arbitrary<Transformer<Model>> transformer() {
      Arbitrary<String> methods = Arbitraries.of("PATCH", "TRACE", "OPTIONS", "CONNECT", "HEAD", "FOO", "POST", "PROPFIND", "get");
      Arbitrary<String> paths =
          Arbitraries.of("/v1/keys", "/v1/keys/fz%3A1", "/v1/keys/a/b", "/v1/templates", "/v1/templates/fz-a", "/v1/openapi.json",
              "/v1/hot", "/v1/sources", "/v1/nothing", "/v1/keys/..%2F..%2Fopenapi.json", "*", "/", "/v1/../v1/keys", "/v1/keys/%zz");
      Arbitrary<Boolean> withBody = Arbitraries.of(false, false, true);
      return Combinators.combine(methods, paths, TOKENS, withBody)
          .as((method, path, token, body) -> {
            Body payload = body ? new Body(FuzzRules.utf8("{\"source\":\"counted\",\"ttl\":\"PT5M\"}"), 0, Transfer.LENGTH, "small") : null;
            Call call = new Call(method, path, token, body ? List.of("application/json") : List.of(), payload);
            return Transformer.mutate(call.describe(), model -> {
              Expect expect;
              boolean oddPath = path.equals("*") || path.equals("/v1/keys/%zz") || path.startsWith("/v1/..");
              if (oddPath) {
                expect = Expect.notServerError(); // what the server makes of the target decides first
              } else if (method.equals("TRACE") || method.equals("FOO") || method.equals("PROPFIND")) {
                expect = Expect.exactly(405); // refused by the server whatever the token
              } else if (method.equals("CONNECT") || method.equals("get")) {
                expect = Expect.clientError();
              } else if (!token.valid()) {
                expect = Expect.exactly(401);
              } else {
                expect = Expect.notServerError();
              }
              Reply reply = check(call, expect, null, null);
              if (method.equals("OPTIONS") && token.valid() && reply.status() == 200 && !contract.methods(template(path)).isEmpty()) {
                Set<String> allowed = new TreeSet<>(Arrays.asList(reply.header("Allow").orElse("").split("\\s*,\\s*")));
                allowed.removeAll(Set.of("HEAD", "OPTIONS"));
                assertThat(allowed).as("Allow of %s against the document", path).isEqualTo(contract.methods(template(path)));
              }
            });
          });
    }

    private static String template(String path) {
      if (path.startsWith("/v1/keys/")) {
        return "/v1/keys/{key}";
      }
      if (path.startsWith("/v1/templates/")) {
        return "/v1/templates/{name}";
      }
      return path;
    }
  }

  private static Arbitrary<String> keyOf(Model state) {
    List<String> known = new ArrayList<>(state.keys.keySet());
    return known.isEmpty()
        ? FuzzInputs.keys().filter(key -> !key.isEmpty())
        : Arbitraries.frequencyOf(tuple(3, Arbitraries.of(known)), tuple(1, FuzzInputs.keys().filter(key -> !key.isEmpty())));
  }

  private static Arbitrary<String> nameOf(Model state) {
    List<String> known = new ArrayList<>(state.templates.keySet());
    Arbitrary<String> any = Arbitraries.of(FuzzInputs.TEMPLATE_NAMES);
    return known.isEmpty() ? any : Arbitraries.frequencyOf(tuple(3, Arbitraries.of(known)), tuple(1, any));
  }

  private static <T> Tuple2<Integer, Arbitrary<? extends T>> tuple(int weight, Arbitrary<? extends T> arbitrary) {
    return Tuple.of(weight, arbitrary);
  }

  private static Map<String, Map<String, String>> quickSources() {
    Map<String, Map<String, String>> quick = new TreeMap<>(rules.sources());
    quick.keySet().retainAll(QUICK_SOURCES);
    return quick;
  }

  /** A listing's limit, as the document says: a whole number in [1, 1000]. */
  private static Optional<Integer> pageSize(String limit) {
    if (!limit.matches("[0-9]{1,9}")) {
      return Optional.empty();
    }
    int size = Integer.parseInt(limit);
    return size >= 1 && size <= 1000 ? Optional.of(size) : Optional.empty();
  }

  /** Byte order of UTF-8, the order of the listings. */
  private static final Comparator<String> BYTES =
      (a, b) -> Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));

  private static String query(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  // ---------------------------------------------------------------------------------------------
  // Requests and their checks.

  /** One request as it goes on the wire. */
  record Call(String method, String target, Token token, List<String> contentTypes, Body body) {

    static Call plain(String method, String target) {
      return new Call(method, target, new Token("Bearer " + TestApp.TOKEN, true, "ok"), List.of(), null);
    }

    Call withToken(Token other) {
      return new Call(method, target, other, contentTypes, body);
    }

    /** The Content-Length the request declares; -1 when chunked or without a body. */
    long declaredLength() {
      if (body == null) {
        return -1;
      }
      return switch (body.transfer()) {
        case LENGTH, DECLARED_ONLY -> body.size();
        case SHORT_LENGTH -> body.bytes().length / 2;
        case CHUNKED -> -1;
      };
    }

    /** Whether the server sees a body at all. */
    boolean hasBody() {
      return body != null && (body.transfer() == Transfer.CHUNKED ? body.size() > 0 : declaredLength() > 0);
    }

    String describe() {
      String shown = target.length() > 120 ? target.substring(0, 120) + "…(" + target.length() + " chars)" : target;
      StringBuilder text = new StringBuilder(method).append(' ').append(shown).append(" token=").append(token.name());
      if (body != null) {
        String preview = new String(body.bytes(), 0, Math.min(body.bytes().length, 160), StandardCharsets.UTF_8);
        text.append(" type=").append(contentTypes).append(" body[").append(body.size()).append(" B, ").append(body.shape()).append("]=").append(preview);
      }
      return text.toString().replaceAll("\\p{Cntrl}", "·");
    }
  }

  /** What the answer must be. */
  record Expect(IntPredicate status, String description) {

    static Expect exactly(int status) {
      return new Expect(code -> code == status, String.valueOf(status));
    }

    static Expect clientError() {
      return new Expect(code -> code >= 400 && code < 500, "4xx");
    }

    static Expect notServerError() {
      return new Expect(code -> code >= 200 && code < 500, "2xx or 4xx");
    }
  }

  /**
   * What the HTTP edges decide before any rule of the operation, in the order the document and
   * the README give them; null when the request passes them.
   */
  private static Expect preconditions(Call call) {
    if (call.target().length() > LONG_URI) {
      return Expect.clientError(); // the URI may be over the server's limit (414), which comes first
    }
    String path = call.target().contains("?") ? call.target().substring(0, call.target().indexOf('?')) : call.target();
    if (path.toUpperCase(Locale.ROOT).contains("%00")) {
      return Expect.clientError(); // the server refuses an encoded NUL in a path (400), before the token
    }
    if (path.indexOf(';') >= 0) {
      return Expect.clientError(); // a raw ';' is refused: by the server (400) or the API (422), maybe before the token
    }
    if (call.contentTypes().size() > 1) {
      return Expect.clientError(); // the server itself refuses a second Content-Type (400), before the token
    }
    if (call.declaredLength() > MAX_BODY) {
      return Expect.exactly(413); // answered before the token is looked at, or the body read
    }
    if (!call.token().valid()) {
      return Expect.exactly(401);
    }
    if (call.hasBody() && !FuzzRules.contentTypeIsJson(call.contentTypes())) {
      return Expect.exactly(415);
    }
    if (call.body() != null && call.body().transfer() == Transfer.CHUNKED && call.body().size() > MAX_BODY) {
      return Expect.clientError(); // 413 at the first byte over the cap, or 400 if the JSON breaks before it
    }
    return null;
  }

  record Reply(int status, String contentType, String body, Map<String, List<String>> headers) {
    Optional<String> header(String name) {
      List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
      return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }
  }

  /**
   * Sends the call and checks what every answer must be: within {@link #HANG}, 2xx or 4xx, an error
   * as the document's ApiError in JSON, a success as the operation's response schema; then {@code
   * expect}.
   */
  private static Reply check(Call call, Expect expect, String method, String pathTemplate) {
    Reply reply = send(call, true);
    String what = call.describe() + " → " + reply.status() + " " + abbreviated(reply.body());
    assertThat(reply.status()).as("never a 5xx: %s", what).isBetween(200, 499);
    boolean bodiless = call.method().equals("HEAD") || reply.status() == 204;
    if (reply.status() >= 400 && !bodiless) {
      assertThat(reply.contentType()).as("Content-Type of %s", what).startsWith("application/json");
      JsonNode error = read(reply.body());
      assertThat(contract.violations(contract.schema("ApiError"), error)).as("ApiError shape of %s", what).isEmpty();
      assertThat(error.path("code").asInt()).as("code of %s", what).isEqualTo(reply.status());
    }
    if (reply.status() < 300 && !bodiless && method != null) {
      Optional<JsonNode> schema = contract.responseSchema(method, pathTemplate, reply.status());
      assertThat(schema).as("the document declares %s %s → %d", method, pathTemplate, reply.status()).isPresent();
      assertThat(contract.violations(schema.get(), read(reply.body()))).as("response schema of %s", what).isEmpty();
    }
    assertThat(expect.status().test(reply.status())).as("expected %s: %s", expect.description(), what).isTrue();
    return reply;
  }

  private static Reply send(Call call, boolean fuzzed) {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    StringBuilder lines = new StringBuilder();
    lines.append(call.method()).append(' ').append(call.target()).append(" HTTP/1.1\r\n");
    lines.append("Host: localhost\r\nAccept: application/json\r\nConnection: close\r\n");
    if (call.token().header() != null) {
      lines.append("Authorization: ").append(call.token().header()).append("\r\n");
    }
    Body body = call.body();
    if (body != null) {
      call.contentTypes().forEach(type -> lines.append("Content-Type: ").append(type).append("\r\n"));
      if (body.transfer() == Transfer.CHUNKED) {
        lines.append("Transfer-Encoding: chunked\r\n");
      } else {
        lines.append("Content-Length: ").append(call.declaredLength()).append("\r\n");
      }
    }
    lines.append("\r\n");
    head.writeBytes(lines.toString().getBytes(StandardCharsets.UTF_8));
    long started = System.nanoTime();
    try {
      RawHttp.Reply raw = new RawHttp(APP.extension().getLocalPort(), HANG).exchange(head.toByteArray(), writer(body), null);
      if (fuzzed) {
        STATS.count(raw.status(), System.nanoTime() - started, call);
      } else {
        STATS.housekeeping++;
      }
      return new Reply(raw.status(), raw.contentType(), raw.body(), raw.headers());
    } catch (SocketTimeoutException e) {
      throw new AssertionError("no answer within " + HANG + " (a hang): " + call.describe(), e);
    } catch (IOException e) {
      throw new UncheckedIOException("the exchange failed: " + call.describe(), e);
    }
  }

  /** Writes the body as the call says; null when there is nothing to write. */
  private static Consumer<OutputStream> writer(Body body) {
    if (body == null || body.transfer() == Transfer.DECLARED_ONLY) {
      return null;
    }
    return out -> {
      try {
        byte[] spaces = new byte[64 * 1024];
        Arrays.fill(spaces, (byte) ' ');
        long padding = Math.max(0, body.padTo() - body.bytes().length);
        if (body.transfer() == Transfer.CHUNKED) {
          chunk(out, body.bytes(), body.bytes().length);
          for (long sent = 0; sent < padding; sent += spaces.length) {
            chunk(out, spaces, (int) Math.min(spaces.length, padding - sent));
          }
          out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        } else {
          out.write(body.bytes());
          if (body.transfer() == Transfer.LENGTH) {
            for (long sent = 0; sent < padding; sent += spaces.length) {
              out.write(spaces, 0, (int) Math.min(spaces.length, padding - sent));
            }
          }
        }
        out.flush();
      } catch (IOException e) {
        // the server answered and closed before it had it all: expected when it refuses the body
      }
    };
  }

  private static void chunk(OutputStream out, byte[] bytes, int length) throws IOException {
    if (length == 0) {
      return;
    }
    out.write((Integer.toHexString(length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
    out.write(bytes, 0, length);
    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
  }

  private static JsonNode json(Reply reply) {
    return read(reply.body());
  }

  private static JsonNode read(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + abbreviated(text), e);
    }
  }

  private static String abbreviated(String text) {
    return text.length() > 400 ? text.substring(0, 400) + "…" : text;
  }

  /** Requests made and the statuses they got, printed when the class is done. */
  static final class Stats {
    private final Map<Integer, Integer> statuses = new TreeMap<>();
    private final Map<String, Map<Integer, Integer>> byOperation = new TreeMap<>();
    private final long startedAt = System.nanoTime();
    private int requests;
    private long slowestNanos;
    private String slowest = "";
    int housekeeping;
    int sessions;

    synchronized void count(int status, long nanos, Call call) {
      requests++;
      statuses.merge(status, 1, Integer::sum);
      byOperation.computeIfAbsent(operationOf(call), operation -> new TreeMap<>()).merge(status, 1, Integer::sum);
      if (nanos > slowestNanos) {
        slowestNanos = nanos;
        slowest = call.describe().substring(0, Math.min(160, call.describe().length()));
      }
    }

    synchronized String summary() {
      long serverErrors = statuses.entrySet().stream().filter(entry -> entry.getKey() >= 500).mapToLong(Map.Entry::getValue).sum();
      return String.format(
          Locale.ROOT,
          "admin API fuzz: %d generated requests in %d sessions (%d more to list and clean up), %.1f s; slowest answer %d ms (%s); "
              + "5xx: %d; statuses: %s",
          requests,
          sessions,
          housekeeping,
          (System.nanoTime() - startedAt) / 1e9,
          slowestNanos / 1_000_000,
          slowest,
          serverErrors,
          statuses)
          + byOperation.entrySet().stream()
              .map(operation -> String.format(Locale.ROOT, "%n  %-32s %s", operation.getKey(), operation.getValue()))
              .collect(Collectors.joining());
    }

    /** The operation a call aims at, as the document names its path. */
    private static String operationOf(Call call) {
      if (!Set.of("GET", "PUT", "DELETE", "POST").contains(call.method())) {
        return call.method() + " (any path)";
      }
      String path = call.target().contains("?") ? call.target().substring(0, call.target().indexOf('?')) : call.target();
      if (path.startsWith("/v1/keys/")) {
        path = path.endsWith("/refresh") ? "/v1/keys/{key}/refresh" : "/v1/keys/{key}";
      } else if (path.startsWith("/v1/templates/")) {
        path = "/v1/templates/{name}";
      }
      return call.method() + " " + path;
    }
  }
}
