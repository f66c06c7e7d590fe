package io.refresher.it.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.refresher.testing.ServiceProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two replicas read one datasource's log one at a time (issue 21, acceptance 1): only one reads;
 * when it is killed, the other takes over within the stated bound (the standby's retry delay, 500
 * ms here, plus the engine's start: {@link #TAKEOVER_BOUND}), and every change, including those
 * committed while nobody read, is applied once.
 */
class LogCaptureReplicasIT {

  private static final Logger LOG = LoggerFactory.getLogger(LogCaptureReplicasIT.class);
  private static final int KEYS = 100;
  /** docs/sources.md: a standby reads on within its retry delay (changes.reconnectDelay) plus 5 s. */
  private static final Duration TAKEOVER_BOUND = Duration.ofMillis(500).plusSeconds(5);

  private static CaptureFixture fixture;
  private static List<ServiceProcess> replicas;

  @BeforeAll
  static void start() throws Exception {
    fixture = new CaptureFixture("log_capture_replicas", KEYS);
    replicas = List.of(fixture.replica("capture-a"), fixture.replica("capture-b"));
    replicas.forEach(ServiceProcess::start);
    for (ServiceProcess replica : replicas) {
      replica.awaitReady(Duration.ofSeconds(120));
    }
    fixture.register(replicas.get(0));
    await("every key computed").atMost(Duration.ofSeconds(30)).until(() -> fixture.servedVersions().values().stream().allMatch(v -> v == 0));
    await("one replica reads the log").atMost(Duration.ofSeconds(30)).until(() -> readers() == 1);
  }

  @AfterAll
  static void stop() {
    if (fixture != null) {
      fixture.close();
    }
  }

  private static double readers() {
    return replicas.stream().filter(ServiceProcess::isAlive).mapToDouble(replica -> replica.metric("refresher_capture_reading")).sum();
  }

  private static ServiceProcess reader() {
    return replicas.stream().filter(replica -> replica.isAlive() && replica.metric("refresher_capture_reading") == 1).findFirst().orElseThrow();
  }

  @Test
  void readerKilled_standbyTakesOver_everyChangeAppliedOnce() throws Exception {
    Map<String, Long> runsBefore = fixture.runsByKey();
    Map<String, Integer> expected = fixture.updateAll();
    await("every change in Redis").atMost(Duration.ofSeconds(10)).until(() -> fixture.servedAt(expected) == KEYS);
    assertThat(readers()).as("replicas reading the log").isEqualTo(1.0);
    assertThat(CaptureFixture.delta(runsBefore, fixture.runsByKey())).as("source runs per key, two replicas")
        .allSatisfy((key, count) -> assertThat(count).as(key).isEqualTo(1L));

    ServiceProcess killed = reader();
    ServiceProcess standby = replicas.stream().filter(replica -> replica != killed).findFirst().orElseThrow();
    runsBefore = fixture.runsByKey();
    killed.kill();
    long killedAt = System.nanoTime();
    Map<String, Integer> whileNobodyReads = fixture.updateAll();
    await("the standby reads").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
        .until(() -> standby.metric("refresher_capture_reading") == 1);
    long takeoverMillis = (System.nanoTime() - killedAt) / 1_000_000;
    await("every change in Redis after the takeover").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
        .until(() -> fixture.servedAt(whileNobodyReads) == KEYS);
    long appliedMillis = (System.nanoTime() - killedAt) / 1_000_000;
    LOG.info("reader killed: the standby read on {} ms later; the {} changes committed meanwhile were in Redis {} ms after the kill",
        takeoverMillis, KEYS, appliedMillis);
    assertThat(takeoverMillis).as("ms from the reader's kill to the standby reading").isLessThanOrEqualTo(TAKEOVER_BOUND.toMillis());
    assertThat(CaptureFixture.delta(runsBefore, fixture.runsByKey())).as("source runs per key after the takeover")
        .allSatisfy((key, count) -> assertThat(count).as(key).isEqualTo(1L));

    killed.start();
    killed.awaitReady(Duration.ofSeconds(120));
    assertThat(killed.metric("refresher_capture_reading")).as("the restarted replica is a standby").isZero();
    assertThat(readers()).isEqualTo(1.0);
  }
}
