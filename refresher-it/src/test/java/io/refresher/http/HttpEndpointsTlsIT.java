package io.refresher.http;

import java.time.InstantSource;
import io.refresher.wiring.Threads;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.WireMockServer;
import io.refresher.registry.RefreshPolicy;
import io.refresher.registry.Registration;
import io.refresher.source.HttpRequestSpec;
import io.refresher.source.ParamType;
import io.refresher.source.ResultShape;
import io.refresher.source.SourceCatalog;
import io.refresher.source.SourceDefinition;
import io.refresher.source.SourceException;
import io.refresher.testing.TestCertificates;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An endpoint's TLS against a real HTTPS server whose certificate (for {@code localhost} only) a
 * test CA signed: with the CA's PEM as {@code caCertificate} the request goes through; with the
 * JVM's trust store (which does not know the CA) it fails in TLS; and the host name is verified
 * ({@code 127.0.0.1} is not in the certificate). Each failure is an {@code ERROR} that says TLS.
 */
class HttpEndpointsTlsIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;

  private static TestCertificates certificates;
  private static WireMockServer server;

  @BeforeAll
  static void start() throws Exception {
    certificates = TestCertificates.create(dir.resolve("tls"), "Refresher HTTP test CA");
    Path keystore = serverKeystore(dir.resolve("server-chain.p12"));
    server =
        new WireMockServer(
            options()
                .httpDisabled(true)
                .dynamicHttpsPort()
                .bindAddress("127.0.0.1")
                .keystorePath(keystore.toString())
                .keystoreType("PKCS12")
                .keystorePassword(TestCertificates.STORE_PASSWORD)
                .keyManagerPassword(TestCertificates.STORE_PASSWORD));
    server.start();
    server.stubFor(get(urlPathEqualTo("/tls/1")).willReturn(aResponse().withBody("secure")));
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.stop();
    }
  }

  /** The server's key with its CA-signed certificate and the CA, as the HTTPS server loads them. */
  private static Path serverKeystore(Path file) throws Exception {
    String pem = Files.readString(certificates.serverKey()).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    PrivateKey key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
    CertificateFactory x509 = CertificateFactory.getInstance("X.509");
    Certificate serverCertificate;
    Certificate caCertificate;
    try (InputStream in = Files.newInputStream(certificates.serverCertificate())) {
      serverCertificate = x509.generateCertificate(in);
    }
    try (InputStream in = Files.newInputStream(certificates.caCertificate())) {
      caCertificate = x509.generateCertificate(in);
    }
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    char[] password = TestCertificates.STORE_PASSWORD.toCharArray();
    store.setKeyEntry("server", key, password, new Certificate[] {serverCertificate, caCertificate});
    try (OutputStream out = Files.newOutputStream(file)) {
      store.store(out, password);
    }
    return file;
  }

  /** Loads {@code /tls/1} through an endpoint at {@code host} with the given trust. */
  private static String load(String host, Path ca) throws SourceException {
    HttpEndpointSettings settings =
        new HttpEndpointSettings(
            "tls", URI.create("https://" + host + ":" + server.httpsPort()), ca, 2, Duration.ofSeconds(2), Duration.ofSeconds(5), Map.of());
    try (HttpEndpoints endpoints = HttpEndpoints.create(Map.of("tls", settings), new MetricRegistry(), Threads.scheduler("test-http-deadlines-", 1), InstantSource.system())) {
      HttpRequestSpec http = new HttpRequestSpec("tls", "GET", "/tls/{id}", Map.of(), Map.of(), null, Set.of(200), null);
      SourceDefinition source =
          new SourceDefinition("tls-source", "tls", null, Map.of("id", ParamType.LONG), ResultShape.ROWS, Duration.ofSeconds(5), http, null, null);
      HttpValueLoader loader = new HttpValueLoader(new SourceCatalog(List.of(source)), endpoints, JSON, 1024);
      Instant now = Instant.now();
      return loader.load(new Registration("k", "tls-source", Map.of("id", 1), Duration.ofMinutes(1), now, now, RefreshPolicy.ALWAYS, null));
    }
  }

  @Test
  void trustingTheCaFile_localhost_isServed() throws Exception {
    assertThat(load("localhost", certificates.caCertificate())).isEqualTo("secure");
  }

  @Test
  void jvmTrustStore_doesNotKnowTheCa_failsInTls() {
    SourceException e = catchThrowableOfType(SourceException.class, () -> load("localhost", null));

    assertThat(e.kind()).isEqualTo(SourceException.Kind.ERROR);
    assertThat(e.getMessage()).startsWith("source 'tls-source' (GET /tls/1 at endpoint 'tls') failed in TLS:");
    System.out.println("JVM trust store: " + e.getMessage());
  }

  @Test
  void hostNameNotInTheCertificate_failsInTls() {
    SourceException e = catchThrowableOfType(SourceException.class, () -> load("127.0.0.1", certificates.caCertificate()));

    assertThat(e.kind()).isEqualTo(SourceException.Kind.ERROR);
    assertThat(e.getMessage()).contains("failed in TLS:").contains("127.0.0.1");
    System.out.println("host name: " + e.getMessage());
  }

  @Test
  void caFileWithoutCertificate_failsAtStartNamingIt() throws Exception {
    Path empty = Files.writeString(dir.resolve("empty.pem"), "not a certificate\n");
    HttpEndpointSettings settings =
        new HttpEndpointSettings("tls", URI.create("https://localhost:1"), empty, 2, Duration.ofSeconds(2), Duration.ofSeconds(5), Map.of());

    IllegalStateException e =
        catchThrowableOfType(IllegalStateException.class, () -> HttpEndpoints.create(Map.of("tls", settings), new MetricRegistry(), Threads.scheduler("test-http-deadlines-", 1), InstantSource.system()));

    assertThat(e.getMessage()).startsWith("httpEndpoints.tls.caCertificate " + empty);
  }
}
