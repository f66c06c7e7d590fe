package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.api.KeyResource;
import io.refresher.api.RequestIds;
import io.refresher.config.RefresherConfiguration;
import io.refresher.refresh.Refresher;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * Issue 22, point 4 (in part): every admin API request carries a request id, the caller's {@code
 * X-Request-Id} or a new one, sent back and in the logging context of what the request logs; a
 * refresh's log lines carry its key and source. On the real service (real PostgreSQL and Redis).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class RequestIdIT {

  private static final TestApp APP =
      TestApp.create(
          "request_id",
          List.of("CREATE TABLE test_switch (id bigint PRIMARY KEY, ok int NOT NULL)", "INSERT INTO test_switch VALUES (1, 0)"));
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final List<Logger> loggers =
      List.of((Logger) LoggerFactory.getLogger(KeyResource.class), (Logger) LoggerFactory.getLogger(Refresher.class));

  @BeforeEach
  void listen() {
    logged.start();
    loggers.forEach(logger -> logger.addAppender(logged));
  }

  @AfterEach
  void stopListening() {
    loggers.forEach(logger -> logger.detachAppender(logged));
  }

  @Test
  void callersId_isSentBack_andInTheContextOfTheRequestsLogLines_withTheRefreshsKeyAndSource() {
    try (Response response =
        APP.authorized(APP.api("/v1/keys/" + TestApp.pathOf("request-id:1")))
            .header(RequestIds.HEADER, "deploy-42.step_3")
            .put(Entity.json("{\"source\":\"switchable\",\"params\":{\"id\":1},\"ttl\":\"PT1H\"}"))) {
      assertThat(response.getStatus()).isEqualTo(201);
      assertThat(response.getHeaderString(RequestIds.HEADER)).isEqualTo("deploy-42.step_3");
    }
    // The registration's refresh ran in the request (its source fails: ok = 0) and logged a warning.
    Map<String, String> registered = mdcOf("registered key 'request-id:1'");
    assertThat(registered).containsEntry(RequestIds.MDC_KEY, "deploy-42.step_3");
    Map<String, String> failed = mdcOf("refresh of key 'request-id:1' from source 'switchable' failed");
    assertThat(failed)
        .containsEntry(RequestIds.MDC_KEY, "deploy-42.step_3")
        .containsEntry(Refresher.LOG_KEY, "request-id:1")
        .containsEntry(Refresher.LOG_SOURCE, "switchable");
  }

  @Test
  void noId_orOneThatIsNotAPlainToken_getsANewOne() {
    try (Response none = APP.authorized(APP.api("/v1/sources")).get();
        Response odd = APP.authorized(APP.api("/v1/sources")).header(RequestIds.HEADER, "two words").get();
        Response unauthorized = APP.api("/v1/sources").request().get()) {
      assertThat(none.getStatus()).isEqualTo(200);
      String made = none.getHeaderString(RequestIds.HEADER);
      assertThat(UUID.fromString(made).toString()).isEqualTo(made);
      String replaced = odd.getHeaderString(RequestIds.HEADER);
      assertThat(replaced).isNotEqualTo("two words").isNotEqualTo(made);
      assertThat(UUID.fromString(replaced).toString()).isEqualTo(replaced);
      assertThat(unauthorized.getStatus()).as("refused requests carry one too").isEqualTo(401);
      assertThat(unauthorized.getHeaderString(RequestIds.HEADER)).isNotBlank();
    }
  }

  private Map<String, String> mdcOf(String messageStart) {
    synchronized (logged) {
      return logged.list.stream()
          .filter(event -> event.getFormattedMessage().startsWith(messageStart))
          .findFirst()
          .map(ILoggingEvent::getMDCPropertyMap)
          .orElseThrow(() -> new AssertionError("no log line starting with: " + messageStart + " in " + logged.list));
    }
  }
}
