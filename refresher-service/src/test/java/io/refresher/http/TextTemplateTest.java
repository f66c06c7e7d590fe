package io.refresher.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TextTemplateTest {

  @Test
  void parse_placeholdersAmongText_inOrderOfFirstUse() {
    TextTemplate template = TextTemplate.parse("/a/{id}/b/{lang}-{id}");

    assertThat(template.placeholders()).containsExactly("id", "lang");
    assertThat(template.literals()).containsExactly("/a/", "/b/", "-");
    assertThat(template.wholePlaceholder()).isEmpty();
  }

  @Test
  void parse_doubledBraces_areLiteral() throws Exception {
    TextTemplate template = TextTemplate.parse("{{x}} {y} }}{{");

    assertThat(template.placeholders()).containsExactly("y");
    assertThat(template.render(text -> text, name -> "<" + name + ">")).isEqualTo("{x} <y> }{");
  }

  @Test
  void parse_oneWholePlaceholder_isKnownAsSuch() {
    assertThat(TextTemplate.parse("{price}").wholePlaceholder()).contains("price");
    assertThat(TextTemplate.parse(" {price}").wholePlaceholder()).isEmpty();
  }

  @ParameterizedTest(name = "[{0}]")
  @CsvSource(
      delimiter = '|',
      value = {
        "/a/{id                 | has '{' at position 3 that does not open a {param} placeholder",
        "/a/{}                  | has '{' at position 3 that does not open",
        "/a/{product id}        | has '{' at position 3 that does not open",
        "/a/{1id}               | has '{' at position 3 that does not open",
        "/a/id}                 | has '}' at position 5 outside a placeholder (write }} for a literal brace)",
        "{a}}                   | has '}' at position 3 outside a placeholder",
      })
  void parse_brokenSyntax_failsSayingWhere(String text, String message) {
    IllegalArgumentException e = catchThrowableOfType(IllegalArgumentException.class, () -> TextTemplate.parse(text));

    assertThat(e).isNotNull();
    assertThat(e.getMessage()).contains(message);
  }

  @Test
  void render_valuesThroughTheirEncoder_literalsThroughTheirs() throws Exception {
    Map<String, String> values = Map.of("a", "x y");
    String rendered = TextTemplate.parse("p q {a}").render(UriEncoding::encode, name -> UriEncoding.encode(values.get(name)));

    assertThat(rendered).isEqualTo("p%20q%20x%20y");
  }
}
