package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.dropwizard.util.Duration;
import io.refresher.config.RedisFactory;
import io.refresher.testing.TestCertificates;
import io.refresher.testing.TlsRedis;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The trust settings of {@code redis:} against a real TLS-only Redis ({@link TlsRedis}), through
 * {@link RedisFactory}, the code the service builds its Redis client with: a PKCS12 truststore
 * connects; a CA that signed nothing the server holds is refused; a host the certificate does not
 * name is refused with the default {@code tlsVerification: strict} and accepted with {@code
 * ca-only}. (Apart from {@link RedisTlsIT}: building and refusing clients here must not share a JVM
 * moment with a running service whose 2 s timeouts a busy test machine can trip.)
 */
class RedisTlsTrustIT {

  private static final Path DIRECTORY = temporaryDirectory();
  private static final TestCertificates CERTIFICATES = TestCertificates.create(DIRECTORY.resolve("server"), "Refresher Test CA");
  private static final TestCertificates OTHER_CA = TestCertificates.create(DIRECTORY.resolve("other"), "Unrelated Test CA");

  private static final TlsRedis REDIS = TlsRedis.start(CERTIFICATES);

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
  void rediss_caCertificate_connects() {
    RedisFactory factory = factory(REDIS.url());
    factory.setCaCertificate(CERTIFICATES.caCertificate().toString());

    assertWritesAndReads(factory);
  }

  @Test
  void rediss_truststore_connects() {
    RedisFactory factory = factory(REDIS.url());
    factory.setTruststore(CERTIFICATES.caTruststore().toString());
    factory.setTruststorePassword(TestCertificates.STORE_PASSWORD);

    assertWritesAndReads(factory);
  }

  @Test
  void rediss_caThatSignedNothing_refusedNamingTheCertificateProblem() {
    RedisFactory factory = factory(REDIS.url());
    factory.setCaCertificate(OTHER_CA.caCertificate().toString());

    Throwable failure = catchThrowable(() -> factory.build().shutdown());

    assertThat(causes(failure)).as("causes of %s", failure).contains("PKIX path building failed");
  }

  @Test
  void rediss_hostNotInCertificate_refusedUnlessCaOnly() {
    String byAddress = REDIS.url().replace("localhost", "127.0.0.1");
    RedisFactory strict = factory(byAddress);
    strict.setCaCertificate(CERTIFICATES.caCertificate().toString());

    Throwable failure = catchThrowable(() -> strict.build().shutdown());

    assertThat(causes(failure)).as("causes of %s", failure).contains("No subject alternative names matching IP address 127.0.0.1");

    RedisFactory caOnly = factory(byAddress);
    caOnly.setCaCertificate(CERTIFICATES.caCertificate().toString());
    caOnly.setTlsVerification(RedisFactory.TlsVerification.CA_ONLY);
    assertWritesAndReads(caOnly);
  }

  private static RedisFactory factory(String url) {
    RedisFactory factory = new RedisFactory();
    factory.setUrl(url);
    factory.setConnectionPoolSize(2);
    factory.setNettyThreads(2);
    factory.setConnectTimeout(Duration.seconds(5));
    factory.setTimeout(Duration.seconds(10));
    return factory;
  }

  private static void assertWritesAndReads(RedisFactory factory) {
    RedissonClient client = factory.build();
    try {
      client.getBucket("tls:factory", StringCodec.INSTANCE).set("over-tls");
      assertThat(client.getBucket("tls:factory", StringCodec.INSTANCE).get()).isEqualTo("over-tls");
    } finally {
      client.shutdown();
    }
  }

  private static String causes(Throwable failure) {
    assertThat(failure).as("a failure").isNotNull();
    StringBuilder text = new StringBuilder();
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      text.append(cause).append('\n');
    }
    return text.toString();
  }

  private static Path temporaryDirectory() {
    try {
      return Files.createTempDirectory("refresher-redis-tls-trust-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
