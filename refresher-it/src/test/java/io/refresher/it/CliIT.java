package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.cli.RefresherCli;
import io.refresher.config.RefresherConfiguration;
import io.refresher.embedded.FreePorts;
import io.refresher.testing.TestApp;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22, point 2 and acceptance 2: {@code refresher apply -f} on a file of 3 templates and 50
 * keys against the running service (real PostgreSQL and Redis): the first apply creates them, the
 * second changes nothing (the change log unchanged), {@code --dry-run} changes nothing, {@code
 * --prune} after one key left the file deletes only that one; and the exit statuses a script
 * reads.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CliIT {

  private static final String READ = "cli-read-token-0123456789";
  private static final TestApp APP =
      TestApp.create(
          "cli",
          List.of(
              "CREATE TABLE test_switch (id bigint primary key, ok int)",
              "CREATE TABLE test_product (id bigint primary key, name text, price numeric, category text, tags text[])"),
          "admin.readToken", READ);
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private record Run(int status, String out, String err) {}

  private static Run cli(String token, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--server", "http://127.0.0.1:" + EXTENSION.getLocalPort(), "--token", token, "--max-retries", "0"));
    return run(all.toArray(String[]::new));
  }

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = RefresherCli.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Run(status, out.toString(), err.toString());
  }

  /** 3 templates and {@code keys} keys (cli:0 ... ), each key of TTL {@code ttl}. */
  private Path file(String name, int keys, String ttlOfKey7) throws Exception {
    StringBuilder yaml = new StringBuilder("templates:\n");
    yaml.append("  switches:\n    pattern: \"cli-switch:{id}\"\n    source: switchable\n    ttl: PT1M\n");
    yaml.append("  stamps:\n    pattern: \"cli-stamp:{id}\"\n    source: stamped\n    ttl: PT2M\n");
    yaml.append("  products:\n    pattern: \"cli-product:{id}\"\n    source: product-by-id\n    ttl: PT10M\n");
    yaml.append("keys:\n");
    for (int i = 0; i < keys; i++) {
      yaml.append("  \"cli:").append(i).append("\":\n    source: counted\n    ttl: ")
          .append(i == 7 ? ttlOfKey7 : "PT1M").append('\n');
      if (i % 2 == 0) {
        yaml.append("    policy: always\n");
      }
    }
    return Files.writeString(dir.resolve(name), yaml.toString());
  }

  private static long changeRows() {
    return APP.database().queryLong("SELECT count(*) FROM refresher.refresher_audit");
  }

  private static long registered() {
    return APP.database().queryLong("SELECT count(*) FROM refresher.refresher_key WHERE key LIKE 'cli:%'")
        + APP.database().queryLong("SELECT count(*) FROM refresher.refresher_template");
  }

  @Test
  @Order(1)
  void apply_createsThenChangesNothing_dryRunChangesNothing_pruneDeletesOnlyWhatLeftTheFile() throws Exception {
    Path all = file("registrations.yaml", 50, "PT1M");

    Run dryRun = cli(TestApp.TOKEN, "apply", "-f", all.toString(), "--dry-run");
    assertThat(dryRun.status()).as(dryRun.err()).isZero();
    assertThat(dryRun.out()).contains("+ template switches").contains("+ key cli:49").contains("53 to create").contains("dry run: nothing changed");
    assertThat(registered()).as("a dry run registers nothing").isZero();
    assertThat(changeRows()).isZero();

    Run first = cli(TestApp.TOKEN, "apply", "-f", all.toString());
    assertThat(first.status()).as(first.err()).isZero();
    assertThat(first.out()).contains("53 to create, 0 to replace, 0 to delete, 0 unchanged");
    assertThat(registered()).isEqualTo(53);
    long rows = changeRows();
    assertThat(rows).isEqualTo(53);

    Run second = cli(TestApp.TOKEN, "apply", "-f", all.toString());
    assertThat(second.status()).as(second.err()).isZero();
    assertThat(second.out()).contains("0 to create, 0 to replace, 0 to delete, 53 unchanged");
    assertThat(changeRows()).as("the second apply changed nothing").isEqualTo(rows);
    assertThat(cli(READ, "diff", "-f", all.toString()).status()).as("diff of an applied file").isZero();

    // One key leaves the file, another's TTL changes.
    Path edited = file("edited.yaml", 49, "PT5M"); // cli:49 gone, cli:7 at PT5M
    Run diff = cli(READ, "diff", "-f", edited.toString(), "--prune");
    assertThat(diff.status()).as("diff found differences").isEqualTo(1);
    assertThat(diff.out()).contains("~ key cli:7 (ttl: PT1M -> PT5M)").contains("- key cli:49");
    Run prunePlan = cli(TestApp.TOKEN, "apply", "-f", edited.toString(), "--prune", "--dry-run");
    assertThat(prunePlan.status()).isZero();
    assertThat(changeRows()).as("a dry run with --prune changes nothing").isEqualTo(rows);
    assertThat(registered()).isEqualTo(53);

    Run pruned = cli(TestApp.TOKEN, "apply", "-f", edited.toString(), "--prune", "-o", "json");
    assertThat(pruned.status()).as(pruned.err()).isZero();
    JsonNode plan = JSON.readTree(pruned.out());
    assertThat(plan.get("steps")).hasSize(2);
    assertThat(plan.get("unchanged").get("keys").asInt()).isEqualTo(48);
    assertThat(registered()).as("only the key that left the file is deleted").isEqualTo(52);
    assertThat(APP.database().queryLong("SELECT count(*) FROM refresher.refresher_key WHERE key = 'cli:49'")).isZero();
    assertThat(APP.database().queryLong("SELECT ttl_ms FROM refresher.refresher_key WHERE key = 'cli:7'")).isEqualTo(300_000);
    assertThat(changeRows()).isEqualTo(rows + 2);

    JsonNode keys = JSON.readTree(cli(READ, "get", "keys", "--prefix", "cli:", "-o", "json").out());
    assertThat(keys).hasSize(49);
    assertThat(cli(READ, "get", "templates").out()).contains("cli-switch:{id}").contains("cli-product:{id}");
    assertThat(cli(READ, "get", "changes", "--key", "cli:49").out()).contains("delete").contains("admin");
  }

  @Test
  @Order(2)
  void exitStatuses() throws Exception {
    Path bad = Files.writeString(dir.resolve("bad.yaml"), "keys:\n  x:\n    source: counted\n    ttl: ten minutes\n");
    long rows = changeRows();
    Run invalid = cli(TestApp.TOKEN, "apply", "-f", bad.toString());
    assertThat(invalid.status()).as("an invalid file: nothing sent").isEqualTo(2);
    assertThat(invalid.err()).contains("keys.x.ttl: must be an ISO-8601 duration");
    assertThat(changeRows()).isEqualTo(rows);
    assertThat(run("apply").status()).as("usage: no file").isEqualTo(2);

    Path one = Files.writeString(dir.resolve("one.yaml"), "keys:\n  \"cli:new\":\n    source: counted\n    ttl: PT1M\n");
    Run readOnly = cli(READ, "apply", "-f", one.toString());
    assertThat(readOnly.status()).as("a read token cannot apply").isEqualTo(3);
    assertThat(readOnly.err()).contains("403");
    assertThat(cli("wrong-token-0123456789", "get", "hot").status()).as("a wrong token").isEqualTo(3);

    Path unknownSource = Files.writeString(dir.resolve("unknown.yaml"), "keys:\n  \"cli:odd\":\n    source: no-such-source\n    ttl: PT1M\n");
    Run refused = cli(TestApp.TOKEN, "apply", "-f", unknownSource.toString());
    assertThat(refused.status()).as("the service refuses the registration").isEqualTo(3);
    assertThat(refused.err()).contains("source");

    Run unreachable =
        run("get", "hot", "--server", "http://127.0.0.1:" + FreePorts.next(), "--token", TestApp.TOKEN, "--max-retries", "0");
    assertThat(unreachable.status()).as("nothing listens there").isEqualTo(4);

    Run refreshed = cli(TestApp.TOKEN, "refresh", "cli:0", "cli:1");
    assertThat(refreshed.status()).as(refreshed.out() + refreshed.err()).isZero();
    assertThat(refreshed.out()).contains("cli:0").contains("refreshed");
    Run notRegistered = cli(TestApp.TOKEN, "refresh", "cli:0", "nobody:registered");
    assertThat(notRegistered.status()).isEqualTo(5);
    assertThat(notRegistered.out()).contains("not_registered");

    Run prewarm = cli(READ, "prewarm", "status", "-o", "json");
    assertThat(prewarm.status()).isZero();
    assertThat(JSON.readTree(prewarm.out()).has("prewarm")).isTrue();
  }
}
