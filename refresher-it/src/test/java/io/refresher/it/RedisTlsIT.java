package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.RealServers;
import io.refresher.testing.TestApp;
import io.refresher.testing.TestCertificates;
import io.refresher.testing.TlsRedis;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The service on a Redis that speaks only TLS ({@link TlsRedis}: no plain-text port at all), with
 * a server certificate for {@code localhost} signed by a CA the test made, trusted through {@code
 * redis.caCertificate} (PEM): values are written by the service and read back by an application
 * client over TLS, and the service's own reads (live status, readiness) work. Without that setting
 * the service cannot start on this server (PKIX: the JVM's trust store does not hold the test CA).
 * The other trust settings are in {@link RedisTlsTrustIT}.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class RedisTlsIT {

  private static final Path DIRECTORY = temporaryDirectory();
  private static final TestCertificates CERTIFICATES = TestCertificates.create(DIRECTORY.resolve("server"), "Refresher Test CA");

  private static final TlsRedis REDIS = TlsRedis.start(CERTIFICATES);

  private static final TestApp APP =
      TestApp.on(
          "redis_tls",
          RealServers.newDatabase("redis_tls"),
          REDIS,
          "redis.caCertificate", CERTIFICATES.caCertificate().toString(),
          // Redisson sets TLS up for each new connection on its I/O threads: a pool that stays at
          // its 8 connections opened at start, and a longer timeout, keep a busy test machine's
          // slow handshakes from timing out unrelated commands.
          "redis.connectionPoolSize", "8",
          "redis.timeout", "5s");
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  @AfterAll
  static void stopServerAndDeleteCertificates() throws IOException {
    REDIS.close();
    try (Stream<Path> paths = Files.walk(DIRECTORY)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }

  @Test
  void rediss_caCertificate_valuesWrittenAndReadOverTls() {
    String key = "tls:counted";
    try (Response response = APP.putKey(key, "{\"source\":\"counted\",\"params\":{},\"ttl\":\"PT10M\"}")) {
      assertThat(response.getStatus()).isEqualTo(201);
    }

    // Read back by an application's client, over TLS: the server has no other port. (Awaited: a
    // write that met a slow moment of a busy machine is retried after refresh.retryBase.)
    await("the value, read over TLS")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(APP.get(key)).startsWith("counted-"));
    assertThat(APP.meta(key)).containsKeys("expiresAt", "epoch", "token");
    // And by the service itself: the key's live status and readiness (the redis check) come from Redis.
    await("the key's live status, read by the service over TLS")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              try (Response response = APP.getKey(key)) {
                assertThat(response.getStatus()).isEqualTo(200);
                assertThat(response.readEntity(String.class)).contains("\"valuePresent\":true").doesNotContain("Redis unavailable");
              }
            });
    await("readiness")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              try (Response ready = APP.api("/health-check").queryParam("type", "ready").request().get()) {
                assertThat(ready.getStatus()).isEqualTo(200);
              }
            });
  }

  private static Path temporaryDirectory() {
    try {
      return Files.createTempDirectory("refresher-redis-tls-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
