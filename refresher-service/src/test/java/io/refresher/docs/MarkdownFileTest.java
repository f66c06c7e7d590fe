package io.refresher.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Markdown reading the docs tests rely on: GitHub's anchors, and what counts as a link. */
class MarkdownFileTest {

  @Test
  void slug_followsGitHubsRules() {
    assertThat(MarkdownFile.slug("Refresh on change (PostgreSQL `NOTIFY`)")).isEqualTo("refresh-on-change-postgresql-notify");
    assertThat(MarkdownFile.slug("Finding 11: Netty \"LEAK: ByteBuf.release() was not called\""))
        .isEqualTo("finding-11-netty-leak-bytebufrelease-was-not-called");
    assertThat(MarkdownFile.slug("The admin connector is internal")).isEqualTo("the-admin-connector-is-internal");
    assertThat(MarkdownFile.slug("snake_case and-dash")).isEqualTo("snake_case-and-dash");
    assertThat(MarkdownFile.slug("See [the docs](docs/a.md)")).isEqualTo("see-the-docs");
  }

  @Test
  void duplicateHeadingsAndHtmlAnchors_areAnchors_codeBlocksHoldNoLinks(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("a.md");
    Files.writeString(file, String.join("\n",
        "# Title", "## Usage", "## Usage", "## Usage", "<a id=\"custom\"></a>",
        "[one](b.md#x) and `[not](code.md)`",
        "```sh", "[not a link](c.md)", "```",
        "[ref]: d.md"));
    MarkdownFile markdown = MarkdownFile.read(file);
    assertThat(markdown.anchors()).containsExactlyInAnyOrder("title", "usage", "usage-1", "usage-2", "custom");
    assertThat(markdown.links()).extracting(MarkdownFile.Link::target).containsExactly("b.md#x", "d.md");
    assertThat(markdown.links()).extracting(MarkdownFile.Link::line).containsExactly(6, 10);
    assertThat(markdown.codeBlocks()).singleElement().satisfies(block -> {
      assertThat(block.info()).isEqualTo("sh");
      assertThat(block.firstLine()).isEqualTo(8);
      assertThat(block.lines()).containsExactly("[not a link](c.md)");
    });
  }
}
