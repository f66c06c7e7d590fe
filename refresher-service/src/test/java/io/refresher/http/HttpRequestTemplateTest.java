package io.refresher.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.refresher.source.HttpRequestSpec;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each value encoded for where it stands: a path placeholder as part of one segment, a query value
 * as one component, a header value refused when it could split the header, a body value as one
 * JSON value. The dangerous values are the ones that would leave their place if sent as text.
 */
class HttpRequestTemplateTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final URI BASE = URI.create("https://api.example:8443/v1/");

  private static HttpRequestSpec spec(String method, String path, Map<String, String> query, Map<String, String> headers, String body)
      throws Exception {
    return new HttpRequestSpec(
        "api", method, path, query, headers, body == null ? null : JSON.readTree(body), Set.of(200), null);
  }

  private static HttpRequestTemplate.Rendered render(HttpRequestSpec spec, Map<String, Object> values) throws Exception {
    return new HttpRequestTemplate(spec, BASE).render(values);
  }

  @ParameterizedTest(name = "path value [{0}] -> {1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '\'',
      value = {
        "../admin               | ..%2Fadmin",
        "a/b                    | a%2Fb",
        "x?y=1                  | x%3Fy%3D1",
        "#frag                  | %23frag",
        "..                     | %2E%2E",
        ".                      | %2E",
        "user@evil.com          | user%40evil.com",
        "%2F                    | %252F",
        "http://evil.example/x  | http%3A%2F%2Fevil.example%2Fx",
        "'a b'                  | a%20b",
        "a;b=c                  | a%3Bb%3Dc",
        "é                      | %C3%A9",
        "~user_1-2.x            | ~user_1-2.x",
      })
  void render_dangerousPathValue_staysInsideItsSegment(String value, String encoded) throws Exception {
    HttpRequestTemplate.Rendered rendered =
        render(spec("GET", "/items/{id}/reviews", Map.of(), Map.of(), null), Map.of("id", value));

    assertThat(rendered.uri().toString()).isEqualTo("https://api.example:8443/v1/items/" + encoded + "/reviews");
    assertThat(rendered.uri().getRawPath()).isEqualTo("/v1/items/" + encoded + "/reviews");
    assertThat(rendered.uri().getRawQuery()).isNull();
    assertThat(rendered.uri().getRawFragment()).isNull();
    assertThat(rendered.uri().getHost()).isEqualTo("api.example");
    assertThat(rendered.uri().getRawUserInfo()).isNull();
  }

  @ParameterizedTest(name = "query value [{0}] -> {1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '\'',
      value = {
        "../admin               | ..%2Fadmin",
        "a/b                    | a%2Fb",
        "x?y=1                  | x%3Fy%3D1",
        "a&b=c                  | a%26b%3Dc",
        "1+1                    | 1%2B1",
        "#frag                  | %23frag",
        "..                     | ..",
        "user@evil.com          | user%40evil.com",
        "%2F                    | %252F",
        "http://evil.example/x  | http%3A%2F%2Fevil.example%2Fx",
        "'a b'                  | a%20b",
        "''                     | ''",
      })
  void render_dangerousQueryValue_staysOneComponent(String value, String encoded) throws Exception {
    Map<String, String> query = new LinkedHashMap<>();
    query.put("q", "{q}");
    query.put("lang", "en");
    HttpRequestTemplate.Rendered rendered = render(spec("GET", "/search", query, Map.of(), null), Map.of("q", value));

    assertThat(rendered.uri().getRawQuery()).isEqualTo("q=" + encoded + "&lang=en");
    assertThat(rendered.uri().getRawPath()).isEqualTo("/v1/search");
    assertThat(rendered.uri().getRawFragment()).isNull();
  }

  @Test
  void render_queryLiteralTextAndNames_areEncodedToo() throws Exception {
    HttpRequestTemplate.Rendered rendered =
        render(spec("GET", "/search", Map.of("sort by", "price & {dir}"), Map.of(), null), Map.of("dir", "asc"));

    assertThat(rendered.uri().getRawQuery()).isEqualTo("sort%20by=price%20%26%20asc");
  }

  @Test
  void render_batchValuesAsAWholeQueryValue_repeatTheParameterOncePerValue() throws Exception {
    Map<String, String> query = new java.util.LinkedHashMap<>();
    query.put("id", "{id}");
    query.put("view", "full");
    HttpRequestTemplate.Rendered rendered =
        render(spec("GET", "/products", query, Map.of(), null), Map.of("id", List.of(1L, 22L, "a b")));

    assertThat(rendered.uri().getRawQuery()).isEqualTo("id=1&id=22&id=a%20b&view=full");
  }

  @Test
  void render_batchValuesInsideOtherText_areRefusedNamingTheParameter() {
    TemplateValueException e =
        catchThrowableOfType(
            TemplateValueException.class,
            () -> render(spec("GET", "/products", Map.of("ids", "x{id}"), Map.of(), null), Map.of("id", List.of(1L, 2L))));

    assertThat(e.getMessage()).contains("parameter 'id' holds a batch's values");
  }

  @Test
  void render_segmentOfTwoValuesThatReadDotDot_hasItsDotsEncoded() throws Exception {
    HttpRequestTemplate.Rendered rendered =
        render(spec("GET", "/items/{a}{b}", Map.of(), Map.of(), null), Map.of("a", ".", "b", "."));

    assertThat(rendered.uri().getRawPath()).isEqualTo("/v1/items/%2E%2E");
  }

  @Test
  void render_pathLiteralText_isSentAsConfigured() throws Exception {
    HttpRequestTemplate.Rendered rendered =
        render(spec("GET", "/items/{id}.json/a%20b/x:y@z", Map.of(), Map.of(), null), Map.of("id", 7L));

    assertThat(rendered.uri().getRawPath()).isEqualTo("/v1/items/7.json/a%20b/x:y@z");
  }

  @Test
  void render_valueThatEmptiesASegment_isRefusedNamingTheParameter() throws Exception {
    TemplateValueException e =
        catchThrowableOfType(
            TemplateValueException.class,
            () -> render(spec("GET", "/users/{id}", Map.of(), Map.of(), null), Map.of("id", "")));

    assertThat(e.getMessage()).isEqualTo("parameter 'id' makes path segment 2 empty");
  }

  @Test
  void render_typedValues_asTheirText() throws Exception {
    HttpRequestTemplate.Rendered rendered =
        render(
            spec("GET", "/p/{id}/{price}/{flag}", Map.of(), Map.of(), null),
            Map.of("id", -42L, "price", 2.5, "flag", true));

    assertThat(rendered.uri().getRawPath()).isEqualTo("/v1/p/-42/2.5/true");
  }

  @Test
  void render_baseUrlWithoutPathOrTrailingSlash_joinsCleanly() throws Exception {
    HttpRequestSpec spec = spec("GET", "/items/{id}", Map.of(), Map.of(), null);

    assertThat(new HttpRequestTemplate(spec, URI.create("http://127.0.0.1:8080")).render(Map.of("id", "1")).uri())
        .hasToString("http://127.0.0.1:8080/items/1");
    assertThat(new HttpRequestTemplate(spec, URI.create("http://h/base")).render(Map.of("id", "1")).uri())
        .hasToString("http://h/base/items/1");
  }

  /** What HTTP Client does with the URI before it writes the request line: it keeps the raw path and query. */
  @Test
  void render_uriAsTheClientCopiesIt_isUnchanged() throws Exception {
    HttpRequestTemplate.Rendered rendered =
        render(
            spec("GET", "/items/{id}", Map.of("q", "{id}"), Map.of(), null),
            Map.of("id", "../a b/%2F?#@.."));
    HttpUriRequestBase request = new HttpUriRequestBase("GET", rendered.uri());

    String expected = "/v1/items/..%2Fa%20b%2F%252F%3F%23%40..?q=..%2Fa%20b%2F%252F%3F%23%40..";
    assertThat(request.getPath()).isEqualTo(expected);
    assertThat(ClassicRequestBuilder.copy(request).build().getPath()).isEqualTo(expected);
    assertThat(request.getAuthority().getHostName()).isEqualTo("api.example");
  }

  @ParameterizedTest(name = "header value with U+{0}")
  @CsvSource({"000D", "000A", "0000", "001B", "007F"})
  void render_headerValueWithControlCharacter_isRefusedWithoutShowingTheValue(String codePoint) throws Exception {
    String value = "secret-token" + (char) Integer.parseInt(codePoint, 16) + "X-Injected: yes";
    TemplateValueException e =
        catchThrowableOfType(
            TemplateValueException.class,
            () -> render(spec("GET", "/x", Map.of(), Map.of("X-Tenant", "t-{tenant}"), null), Map.of("tenant", value)));

    assertThat(e.getMessage())
        .isEqualTo("parameter 'tenant' cannot go into header 'X-Tenant': its value has a line break or another control character")
        .doesNotContain("secret-token");
  }

  @Test
  void render_headerValueOutsideAscii_isRefused() throws Exception {
    TemplateValueException e =
        catchThrowableOfType(
            TemplateValueException.class,
            () -> render(spec("GET", "/x", Map.of(), Map.of("X-Name", "{name}"), null), Map.of("name", "Zoë")));

    assertThat(e.getMessage()).contains("parameter 'name'").contains("outside ASCII");
  }

  @Test
  void render_headerValues_takeTheirText() throws Exception {
    HttpRequestTemplate.Rendered rendered =
        render(
            spec("GET", "/x", Map.of(), Map.of("Accept-Language", "{lang}", "X-Trace", "{{literal}} {id}"), null),
            Map.of("lang", "de-CH, de;q=0.9", "id", 5L));

    assertThat(rendered.headers())
        .containsExactlyInAnyOrder(
            new HttpRequestTemplate.Header("Accept-Language", "de-CH, de;q=0.9"),
            new HttpRequestTemplate.Header("X-Trace", "{literal} 5"));
  }

  @Test
  void render_body_wholePlaceholdersTyped_textInterpolated_neverSpliced() throws Exception {
    String template =
        """
        {"id": "{id}", "price": "{price}", "flag": "{flag}", "name": "{name}",
         "label": "item {id}: {name}", "literal": "{{id}}", "fixed": [1, null, false, "x"],
         "nested": {"ids": ["{id}", "{name}"]}}
        """;
    String name = "\"}, \"admin\": true, \"x\": {\"";
    HttpRequestTemplate.Rendered rendered =
        render(spec("POST", "/search", Map.of(), Map.of(), template), Map.of("id", 42L, "price", 2.5, "flag", true, "name", name));

    JsonNode body = rendered.body();
    assertThat(body.get("id").isLong()).isTrue();
    assertThat(body.get("id").longValue()).isEqualTo(42L);
    assertThat(body.get("price").isDouble()).isTrue();
    assertThat(body.get("flag").isBoolean()).isTrue();
    assertThat(body.get("name").textValue()).isEqualTo(name);
    assertThat(body.get("label").textValue()).isEqualTo("item 42: " + name);
    assertThat(body.get("literal").textValue()).isEqualTo("{id}");
    assertThat(body.has("admin")).as("the value could not add a field").isFalse();
    assertThat(body.get("nested").get("ids").get(0).longValue()).isEqualTo(42L);
    assertThat(JSON.writeValueAsString(body.get("fixed"))).isEqualTo("[1,null,false,\"x\"]");
    assertThat(JSON.writeValueAsString(body))
        .isEqualTo(
            "{\"id\":42,\"price\":2.5,\"flag\":true,\"name\":" + JSON.writeValueAsString(name) + ",\"label\":"
                + JSON.writeValueAsString("item 42: " + name) + ",\"literal\":\"{id}\",\"fixed\":[1,null,false,\"x\"],"
                + "\"nested\":{\"ids\":[42," + JSON.writeValueAsString(name) + "]}}");
  }

  @Test
  void new_brokenPlaceholder_failsNamingWhere() throws Exception {
    IllegalArgumentException e =
        catchThrowableOfType(
            IllegalArgumentException.class,
            () -> new HttpRequestTemplate(spec("GET", "/x", Map.of("q", "{q"), Map.of(), null), BASE));

    assertThat(e.getMessage()).startsWith("query.q has '{' at position 0");
  }

  @Test
  void placeholders_collectsEveryPlace() throws Exception {
    HttpRequestTemplate template =
        new HttpRequestTemplate(
            spec("POST", "/a/{p}", Map.of("q", "{q}"), Map.of("H", "{h}"), "{\"b\": [\"{b}\"]}"), BASE);

    assertThat(template.placeholders()).containsExactlyInAnyOrder("p", "q", "h", "b");
  }
}
