package io.refresher.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PatternSuggestionsTest {

  @Test
  void identifiers_becomePlaceholders_theRestStays() {
    assertThat(PatternSuggestions.suggest("product:42")).isEqualTo("product:{id}");
    assertThat(PatternSuggestions.suggest("user:7:cart")).isEqualTo("user:{id}:cart");
    assertThat(PatternSuggestions.suggest("tenant:12/order:9912")).isEqualTo("tenant:{id}/order:{id2}");
    assertThat(PatternSuggestions.suggest("session:1f0e9c2a-4b7d-4e11-9a3c-5d2e8b7f6a10")).isEqualTo("session:{id}");
    assertThat(PatternSuggestions.suggest("blob:9f86d081884c7d65")).isEqualTo("blob:{id}");
  }

  @Test
  void wordsAndNumbersInsideWords_stay() {
    assertThat(PatternSuggestions.suggest("config:global")).isEqualTo("config:global");
    assertThat(PatternSuggestions.suggest("v2:homepage")).isEqualTo("v2:homepage");
    assertThat(PatternSuggestions.suggest("page:deadbeef")).as("hexadecimal letters only: a word").isEqualTo("page:deadbeef");
  }

  @Test
  void group_byPattern_mostReadFirst_withTheHottestExamples() {
    List<PatternSuggestions.Suggestion> groups =
        PatternSuggestions.group(
            List.of(
                new UncoveredKey("product:1", 5),
                new UncoveredKey("user:9", 30),
                new UncoveredKey("product:2", 20),
                new UncoveredKey("product:3", 10),
                new UncoveredKey("product:4", 1)));
    assertThat(groups).extracting(PatternSuggestions.Suggestion::pattern).containsExactly("product:{id}", "user:{id}");
    assertThat(groups.get(0).rate()).isEqualTo(36.0);
    assertThat(groups.get(0).keys()).isEqualTo(4);
    assertThat(groups.get(0).examples()).containsExactly("product:2", "product:3", "product:1");
  }
}
