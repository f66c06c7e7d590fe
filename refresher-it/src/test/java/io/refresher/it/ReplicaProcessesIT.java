package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.refresher.testing.AccessReporter;
import io.refresher.testing.RealServers;
import io.refresher.testing.ServiceProcess;
import io.refresher.testing.TestDatabase;
import io.refresher.testing.TestRedis;
import io.refresher.testing.ValueWatch;
import io.refresher.testing.ValueWatch.Version;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Three replicas as separate JVMs (the shaded jar, started as a container starts it) on one Redis
 * and one PostgreSQL, through the events of a normal week: a steady run, a pod killed ({@code kill
 * -9}), a node frozen for longer than the lock lease ({@code SIGSTOP}, then {@code SIGCONT}) and a
 * rolling restart ({@code SIGTERM} of each replica in turn, started again once the one before is
 * ready).
 *
 * <p>500 hot keys (read through the access-counting protocol), TTL 6 s, TTR fixed at 3 s, no stale
 * grace and no jitter: a value lives exactly its TTL, so a refresh that comes more than 3 s late
 * shows as an absent key. A reader polls all keys every 50 ms. The source is a PostgreSQL function
 * that counts its own runs per key ({@code pg_stat_statements}, a marker table per key) and returns
 * {@code "<compute time> <replica> <run number>"}: the run numbers of a key's successive values say
 * how many source runs happened between them (exactly one per cycle, or some were wasted), and the
 * compute times say whether an older value ever replaced a newer one.
 *
 * <p>The scenarios share the replicas (starting a JVM takes seconds on two cores) and run in order,
 * the kill last; each starts with all three running and ready (a replica a failed scenario left
 * stopped is started again).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicaProcessesIT {

  private static final int KEYS = 500;
  private static final int REPLICAS = 3;
  private static final Duration TTL = Duration.ofSeconds(6);
  private static final Duration TTR = Duration.ofSeconds(3);
  /** A key's refresh period: TTL - TTR. */
  private static final long PERIOD_MILLIS = TTL.minus(TTR).toMillis();
  private static final Duration CLAIM_LEASE = Duration.ofMillis(1500);
  private static final Duration LOCK_LEASE = Duration.ofMillis(1500);
  /**
   * What a replica gets between SIGTERM and SIGKILL, from its config as the Deployment's
   * terminationGracePeriodSeconds is: shutdownWaitPeriod 1 s + shutdownGracePeriod 2 s + the
   * dispatcher's wait for running refreshes (lockLease 1.5 s), plus a margin for a loaded machine.
   */
  private static final Duration TERMINATION_GRACE = Duration.ofSeconds(15);
  private static final String TOKEN = "replica-processes-token-5d1c";

  private static TestRedis redis;
  private static TestDatabase database;
  private static final List<ServiceProcess> replicas = new ArrayList<>();
  private static AccessReporter reads;
  private static ValueWatch watch;
  private static List<String> keys;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void startReplicas() throws Exception {
    redis = RealServers.newRedis();
    database = RealServers.newDatabase("replica_processes");
    // The source reads pg_stat_statements on every run, and a read scans every entry of the
    // server: after the rest of the suite (every test database's statements, tens of thousands)
    // that made each run several times slower than here alone. The counts other classes took are
    // theirs and already read: classes run one after the other.
    database.queryLong("SELECT count(*) FROM (SELECT pg_stat_statements_reset()) reset");
    database.execute(
        "DO $$ BEGIN FOR i IN 0.." + (KEYS - 1) + " LOOP EXECUTE format('CREATE TABLE replica_marker_%s ()', i); END LOOP; END $$",
        "CREATE TABLE replica_slow (name text NOT NULL, since timestamptz NOT NULL)",
        "INSERT INTO replica_slow VALUES ('', now())",
        """
        CREATE FUNCTION replica_run(id bigint) RETURNS text LANGUAGE plpgsql VOLATILE AS $fn$
        DECLARE
          marker text := format('SELECT count(*) FROM replica_marker_%s', id);
          computed text;
          runs bigint;
        BEGIN
          -- The replica a test is about to stop takes longer, so that the signal lands mid-refresh.
          IF current_setting('application_name') = (SELECT name FROM replica_slow) THEN
            PERFORM pg_sleep(0.6);
          ELSE
            PERFORM pg_sleep(0.05);
          END IF;
          computed := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint::text;
          EXECUTE marker;
          SELECT sum(calls) INTO runs FROM pg_stat_statements
            WHERE query = marker AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database());
          RETURN computed || ' ' || current_setting('application_name') || ' ' || runs;
        END
        $fn$
        """);
    keys = IntStream.range(0, KEYS).mapToObj(i -> "replica:" + i).toList();
    for (int i = 1; i <= REPLICAS; i++) {
      replicas.add(new ServiceProcess("replica-" + i, config("replica-" + i), environment()));
    }
    replicas.forEach(ServiceProcess::start);
    for (ServiceProcess replica : replicas) {
      replica.awaitReady(Duration.ofSeconds(120));
    }
    reads = new AccessReporter(redis);
    keys.forEach(key -> reads.read(key, 5));
    register(replicas.get(0));
    watch = new ValueWatch(redis, keys, 50);
    await("every key hot, present and refreshed by the replicas")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> keys.stream().allMatch(key -> watch.latest(key) != null && watch.versions(key, 0, Long.MAX_VALUE).size() >= 3));
  }

  @AfterAll
  static void stopAll() {
    if (watch != null) {
      watch.close();
    }
    if (reads != null) {
      reads.close();
    }
    replicas.forEach(ServiceProcess::close);
    if (redis != null) {
      redis.close();
    }
  }

  @BeforeEach
  void allReplicasRunning() {
    sourceFastAgain(); // should a scenario have failed before it did
    for (ServiceProcess replica : replicas) {
      if (!replica.isAlive()) {
        replica.start();
      }
    }
    for (ServiceProcess replica : replicas) {
      replica.awaitReady(Duration.ofSeconds(120));
    }
  }

  @Test
  @Order(1)
  void steadyRun_eachKeyRunsOncePerCycleInTotal_noneAbsent_everyReplicaDoesAShare() {
    long from = System.currentTimeMillis();
    Map<String, Double> refreshedBefore = refreshedByReplica();

    holdNoneAbsent("seven refresh cycles", Duration.ofMillis(7 * PERIOD_MILLIS));

    long to = System.currentTimeMillis() - 500;
    Map<String, Double> refreshed = delta(refreshedBefore, refreshedByReplica());
    Cycles cycles = cycles(from, to);
    System.out.printf(
        "[replicas] steady: %d keys, %d cycles observed, source runs per key per cycle %.3f, wasted runs %d,"
            + " refreshes by replica %s, absent 0%n",
        KEYS, cycles.pairs / KEYS, cycles.runsPerCycle(), cycles.wastedRuns, refreshed);
    assertThat(cycles.pairs).as("consecutive values seen per key (5 cycles each)").isGreaterThanOrEqualTo(5L * KEYS);
    assertThat(cycles.wastedRuns).as("source runs whose value never showed: %s", cycles.wasted).isZero();
    assertThat(cycles.shortGaps).as("two refreshes of a key within half a period: %s", cycles.shortGapKeys).isZero();
    assertThat(cycles.maxLatenessMillis).as("latest refresh, past its period: none waited for a lease").isLessThan(CLAIM_LEASE.toMillis());
    double total = refreshed.values().stream().mapToDouble(Double::doubleValue).sum();
    assertThat(refreshed.values()).as("each replica's share of %s refreshes", total).allMatch(share -> share >= total * 0.1);
    assertThat(watch.regressions()).isEmpty();
  }

  @Test
  @Order(2)
  void sigstopLongerThanTheLockLease_noneAbsent_andTheLateWritesAreFencedOut() throws Exception {
    ServiceProcess frozen = replicas.get(2);
    double fencedOutBefore = frozen.metric("refresher_refresh_skipped_fenced_out_total");
    awaitSourceQueryRunningOn(frozen);
    long frozenAt = System.currentTimeMillis();
    frozen.freeze();
    sourceFastAgain();
    try {
      holdNoneAbsent("frozen for longer than the lock and claim leases", LOCK_LEASE.plus(CLAIM_LEASE).plusSeconds(1));
    } finally {
      frozen.thaw();
    }
    long thawedAt = System.currentTimeMillis();
    await("the thawed replica's refreshes that were running are refused by the fence")
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> frozen.metric("refresher_refresh_skipped_fenced_out_total") > fencedOutBefore);
    holdNoneAbsent("a cycle after the thaw", Duration.ofMillis(PERIOD_MILLIS));

    Takeover takeover = takeover(frozenAt);
    double fencedOut = frozen.metric("refresher_refresh_skipped_fenced_out_total") - fencedOutBefore;
    System.out.printf(
        "[replicas] SIGSTOP of %s for %d ms: %d keys it held, taken over within %d ms of their due time; %.0f late writes"
            + " fenced out after SIGCONT; older value over a newer one: %d; absent 0%n",
        frozen.name(), thawedAt - frozenAt, takeover.keysLate, takeover.maxLatenessMillis, fencedOut, watch.regressions().size());
    assertThat(watch.regressions()).as("an older value replaced a newer one").isEmpty();
    assertThat(takeover.keysLate).as("keys the frozen replica held (one was mid-refresh), refreshed late by the others").isPositive();
    assertThat(takeover.maxLatenessMillis).isLessThanOrEqualTo(CLAIM_LEASE.toMillis() + 1000);
    assertThat(frozen.logText()).doesNotContain("Exception in thread");
  }

  @Test
  @Order(3)
  void rollingRestart_eachInTurn_noneAbsent_claimsGivenBack_noRunLostOrDoubledBeyondOnePerRestart() throws Exception {
    int absentBefore = watch.absences().size();
    long from = System.currentTimeMillis();
    List<String> stops = new ArrayList<>();
    for (ServiceProcess replica : replicas) {
      int logBefore = replica.logText().length();
      Duration exit = replica.terminate(TERMINATION_GRACE);
      String stopLog = replica.logText().substring(logBefore);
      Matcher gaveBack = Pattern.compile("gave (\\d+) waiting keys back to the due index").matcher(stopLog);
      assertThat(gaveBack.find()).as("%s says how many claimed keys it gave back; its log: %s", replica.name(), stopLog).isTrue();
      stops.add(replica.name() + " exited in " + exit.toMillis() + " ms, gave back " + gaveBack.group(1) + " keys");
      replica.start();
      replica.awaitReady(Duration.ofSeconds(120));
      assertThat(watch.absences().size()).as("absent while %s restarted", replica.name()).isEqualTo(absentBefore);
    }
    holdNoneAbsent("a cycle after the rollout", Duration.ofMillis(PERIOD_MILLIS));

    Cycles cycles = cycles(from, System.currentTimeMillis() - 500);
    System.out.printf(
        "[replicas] rolling restart: %s; %d cycles, source runs per key per cycle %.3f, wasted runs %d (most for one key %d),"
            + " doubled refreshes %d, latest refresh %d ms past due; absent 0%n",
        stops, cycles.pairs / KEYS, cycles.runsPerCycle(), cycles.wastedRuns, cycles.maxWastedPerKey, cycles.shortGaps,
        cycles.maxLatenessMillis);
    assertThat(cycles.maxWastedPerKey + cycles.maxShortGapsPerKey)
        .as("runs of one key lost or doubled (at most one per restart)")
        .isLessThanOrEqualTo(REPLICAS);
    assertThat(cycles.maxLatenessMillis).isLessThanOrEqualTo(CLAIM_LEASE.toMillis() + 1000);
    assertThat(watch.regressions()).isEmpty();
  }

  @Test
  @Order(4)
  void kill9_midRefresh_itsKeysAreTakenOverWithinTheClaimLease_noneAbsent() throws Exception {
    ServiceProcess victim = replicas.get(1);
    awaitSourceQueryRunningOn(victim);
    long killedAt = System.currentTimeMillis();
    victim.kill();
    sourceFastAgain();

    holdNoneAbsent("two cycles after the kill", Duration.ofMillis(2 * PERIOD_MILLIS));

    Takeover takeover = takeover(killedAt);
    Cycles cycles = cycles(killedAt - PERIOD_MILLIS, System.currentTimeMillis() - 500);
    System.out.printf(
        "[replicas] kill -9 of %s: %d keys it held, taken over within %d ms of their due time"
            + " (claimLease %d ms, TTR %d ms); wasted runs %d; absent 0%n",
        victim.name(), takeover.keysLate, takeover.maxLatenessMillis, CLAIM_LEASE.toMillis(), TTR.toMillis(), cycles.wastedRuns);
    assertThat(takeover.keysLate).as("keys the killed replica held (one was mid-refresh), refreshed late by the others").isPositive();
    assertThat(takeover.maxLatenessMillis)
        .as("the latest refresh after the kill, past its due time")
        .isLessThanOrEqualTo(CLAIM_LEASE.toMillis() + 1000);
    assertThat(cycles.maxWastedPerKey).as("wasted source runs of one key (its refresh on the killed replica)").isLessThanOrEqualTo(1);
    assertThat(watch.regressions()).isEmpty();
  }

  // --- the analysis of what the reader saw --------------------------------------------------

  /** What happened between consecutive values of every key computed in a window. */
  private static final class Cycles {
    long pairs;
    long runs;
    long wastedRuns;
    long maxWastedPerKey;
    long shortGaps;
    long maxShortGapsPerKey;
    long maxLatenessMillis;
    final Map<String, Long> wasted = new HashMap<>();
    final List<String> shortGapKeys = new ArrayList<>();

    double runsPerCycle() {
      return pairs == 0 ? 0 : (double) runs / pairs;
    }
  }

  private static Cycles cycles(long fromMillis, long toMillis) {
    Cycles cycles = new Cycles();
    for (String key : keys) {
      List<Version> versions = watch.versions(key, fromMillis, toMillis);
      long wastedHere = 0;
      long shortHere = 0;
      for (int i = 1; i < versions.size(); i++) {
        Version before = versions.get(i - 1);
        Version after = versions.get(i);
        long ran = after.run() - before.run();
        long gap = after.computedAtMillis() - before.computedAtMillis();
        cycles.pairs++;
        cycles.runs += ran;
        wastedHere += ran - 1;
        if (gap < PERIOD_MILLIS / 2) {
          shortHere++;
          cycles.shortGapKeys.add(key + " " + before + " -> " + after);
        }
        cycles.maxLatenessMillis = Math.max(cycles.maxLatenessMillis, gap - PERIOD_MILLIS);
      }
      if (wastedHere > 0) {
        cycles.wasted.put(key, wastedHere);
      }
      cycles.wastedRuns += wastedHere;
      cycles.maxWastedPerKey = Math.max(cycles.maxWastedPerKey, wastedHere);
      cycles.shortGaps += shortHere;
      cycles.maxShortGapsPerKey = Math.max(cycles.maxShortGapsPerKey, shortHere);
    }
    return cycles;
  }

  /**
   * @param keysLate keys whose first refresh after the fault came more than 500 ms past its due
   *     time: those the replica had claimed or was refreshing, which waited for a lease to end
   * @param maxLatenessMillis how late, past its due time, the latest of those refreshes came
   */
  private record Takeover(int keysLate, long maxLatenessMillis) {}

  /**
   * For every key, how late its first refresh after {@code atMillis} came past its due time (the
   * compute time of the value before plus the period). Keys the stopped replica held are the late
   * ones; the others are on time.
   */
  private static Takeover takeover(long atMillis) {
    int late = 0;
    long latest = 0;
    for (String key : keys) {
      List<Version> before = watch.versions(key, 0, atMillis);
      List<Version> after = watch.versions(key, atMillis, Long.MAX_VALUE);
      if (before.isEmpty() || after.isEmpty()) {
        continue;
      }
      long lateness = after.get(0).computedAtMillis() - (before.get(before.size() - 1).computedAtMillis() + PERIOD_MILLIS);
      if (lateness > 500) {
        late++;
      }
      latest = Math.max(latest, lateness);
    }
    return new Takeover(late, latest);
  }

  // --- driving the replicas ------------------------------------------------------------------

  /** Holds "no key absent" for {@code duration} (checked every 100 ms); names the keys if not. */
  private static void holdNoneAbsent(String what, Duration duration) {
    int absentBefore = watch.absences().size();
    try {
      await(what)
          .during(duration)
          .atMost(duration.plusSeconds(5))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> watch.absences().size() == absentBefore);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      List<ValueWatch.Absence> absent = watch.absences().subList(absentBefore, watch.absences().size());
      StringBuilder detail = new StringBuilder();
      absent.stream().map(ValueWatch.Absence::key).distinct().limit(5).forEach(
          key -> detail.append("\n  ").append(key).append(" absent from ")
              .append(absent.stream().filter(a -> a.key().equals(key)).findFirst().orElseThrow().atMillis())
              .append(", values before: ").append(watch.versions(key, System.currentTimeMillis() - 4 * PERIOD_MILLIS, Long.MAX_VALUE)));
      throw new AssertionError(what + ": " + absent.size() + " reads found a key absent" + detail, e);
    }
  }

  /**
   * Makes the replica's source runs slow (0.6 s) and waits until one of them is running, so that
   * a signal sent now lands mid-refresh: the replica holds that key's lock, and its value is
   * computed but not yet written. (At the usual 50 ms, starting {@code kill} on a busy machine can
   * take longer than the run.) Call {@link #sourceFastAgain()} once the signal is sent.
   */
  private static void awaitSourceQueryRunningOn(ServiceProcess replica) {
    database.execute("UPDATE replica_slow SET name = '" + replica.name() + "', since = clock_timestamp()");
    await(replica.name() + " is running a slow source query")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(10))
        .until(
            () ->
                database.queryLong(
                        "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND application_name = '"
                            + replica.name() + "' AND query LIKE '%replica_run%'"
                            + " AND query_start >= (SELECT since FROM replica_slow)")
                    > 0);
  }

  private static void sourceFastAgain() {
    database.execute("UPDATE replica_slow SET name = ''");
  }

  private static Map<String, Double> refreshedByReplica() {
    Map<String, Double> refreshed = new HashMap<>();
    for (ServiceProcess replica : replicas) {
      refreshed.put(replica.name(), replica.metric("refresher_refresh_refreshed_total"));
    }
    return refreshed;
  }

  private static Map<String, Double> delta(Map<String, Double> before, Map<String, Double> after) {
    Map<String, Double> delta = new HashMap<>();
    after.forEach((name, value) -> delta.put(name, value - before.getOrDefault(name, 0.0)));
    return delta;
  }

  private static void register(ServiceProcess via) throws Exception {
    Semaphore concurrent = new Semaphore(16);
    List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      concurrent.acquire();
      HttpRequest request =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + via.port() + "/v1/keys/replica:" + i))
              .header("Authorization", "Bearer " + TOKEN)
              .header("Content-Type", "application/json")
              .PUT(HttpRequest.BodyPublishers.ofString(
                  "{\"source\":\"replica-run\",\"params\":{\"id\":" + i + "},\"ttl\":\"PT6S\"}"))
              .build();
      responses.add(HTTP.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((response, error) -> concurrent.release()));
    }
    for (CompletableFuture<HttpResponse<String>> response : responses) {
      assertThat(response.get().statusCode()).as(response.get().body()).isEqualTo(201);
    }
  }

  /** The shipped config.yml with this test's source and timings, and the replica's session name. */
  private static Path config(String replica) throws IOException {
    YAMLMapper yaml = new YAMLMapper();
    ObjectNode config = (ObjectNode) yaml.readTree(Path.of("..", "config.yml").toFile());
    ObjectNode source = config.withObjectProperty("sources").putObject("replica-run");
    source.put("sql", "SELECT replica_run(:id) AS replica_run_value");
    source.putObject("params").put("id", "long");
    source.put("result", "scalar");
    source.put("timeout", "1s");
    config.withObjectProperty("database").putObject("properties").put("ApplicationName", replica);
    ObjectNode refresh = config.withObjectProperty("refresh");
    refresh.withObjectProperty("ttr").put("initial", "3s").put("min", "3s").put("max", "3s");
    refresh.put("lockLease", LOCK_LEASE.toMillis() + "ms").put("staleGrace", "0s").put("jitter", 0.0);
    refresh.put("retryBase", "200ms").put("retryMax", "2s");
    config.withObjectProperty("scheduler").put("claimLease", CLAIM_LEASE.toMillis() + "ms").put("epochCheckInterval", "500ms");
    config.withObjectProperty("access").put("halfLife", "5s").put("settle", "300ms").put("sampleInterval", "1s").put("snapshotInterval", "10s");
    config.withObjectProperty("health").put("shutdownWaitPeriod", "1s");
    config.withObjectProperty("server").put("shutdownGracePeriod", "2s");
    Path file = Files.createTempFile("replica-config-" + replica + "-", ".yml");
    yaml.writeValue(file.toFile(), config);
    return file;
  }

  private static Map<String, String> environment() {
    return ServiceProcess.environment(redis, database, TOKEN);
  }
}
