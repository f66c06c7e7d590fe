package io.refresher.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class FailureStreakLogTest {

  private final AtomicLong millis = new AtomicLong(1_000_000);
  private final InstantSource clock = () -> Instant.ofEpochMilli(millis.get());
  private final Logger logger = (Logger) LoggerFactory.getLogger("failure-streak-log-test");
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final FailureStreakLog log = new FailureStreakLog(logger, "template reload", Duration.ofMinutes(1), clock);

  @BeforeEach
  void capture() {
    logged.start();
    logger.addAppender(logged);
    logger.setLevel(Level.DEBUG);
  }

  @AfterEach
  void release() {
    logger.detachAppender(logged);
  }

  @Test
  void failed_firstOfAStreak_warnsWithTheCause() {
    IllegalStateException cause = new IllegalStateException("relation \"refresher_template\" does not exist");

    log.failed(cause);

    assertThat(logged.list).hasSize(1);
    ILoggingEvent event = logged.list.get(0);
    assertThat(event.getLevel()).isEqualTo(Level.WARN);
    assertThat(event.getFormattedMessage()).contains("template reload failed", "refresher_template");
    assertThat(event.getThrowableProxy()).isNotNull();
  }

  @Test
  void failed_againWithinTheInterval_silent() {
    log.failed(new IllegalStateException("down"));
    for (int i = 0; i < 29; i++) {
      millis.addAndGet(2_000);
      log.failed(new IllegalStateException("down"));
    }

    assertThat(levels()).containsExactly(Level.WARN);
  }

  @Test
  void failed_stillFailingAfterTheInterval_warnsOnceMoreWithTheCount() {
    log.failed(new IllegalStateException("down"));
    for (int i = 0; i < 31; i++) {
      millis.addAndGet(2_000);
      log.failed(new IllegalStateException("down"));
    }

    assertThat(levels()).containsExactly(Level.WARN, Level.WARN);
    assertThat(logged.list.get(1).getFormattedMessage()).contains("still failing", "31 failures in a row", "down");
  }

  @Test
  void succeeded_afterAStreak_logsTheRecoveryAndTheNextFailureWarnsAgain() {
    log.failed(new IllegalStateException("down"));
    log.failed(new IllegalStateException("down"));

    log.succeeded();
    log.failed(new IllegalStateException("down again"));

    assertThat(levels()).containsExactly(Level.WARN, Level.INFO, Level.WARN);
    assertThat(logged.list.get(1).getFormattedMessage()).contains("works again after 2 failures");
    assertThat(logged.list.get(2).getFormattedMessage()).contains("down again");
  }

  @Test
  void succeeded_withoutFailures_silent() {
    log.succeeded();

    assertThat(logged.list).isEmpty();
  }

  private List<Level> levels() {
    return logged.list.stream().map(ILoggingEvent::getLevel).toList();
  }
}
