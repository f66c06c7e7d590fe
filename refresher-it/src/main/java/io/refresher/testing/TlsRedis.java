package io.refresher.testing;

import io.refresher.embedded.FreePorts;
import io.refresher.embedded.RedisBinary;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.embedded.RedisServer;

/**
 * A Redis server of its own (the embedded binary of {@link RealServers}, which is built with TLS)
 * that speaks only TLS: {@code port 0} turns the plain-text listener off, {@code tls-port} serves
 * the {@link TestCertificates} server certificate. Clients are not asked for certificates ({@code
 * tls-auth-clients no}). Always embedded, whichever backend {@link RealServers} uses.
 */
public final class TlsRedis implements TestRedis {

  private static final Logger LOG = LoggerFactory.getLogger(TlsRedis.class);

  private final int port;
  private final RedisServer server;
  private final TestCertificates certificates;

  private TlsRedis(int port, RedisServer server, TestCertificates certificates) {
    this.port = port;
    this.server = server;
    this.certificates = certificates;
  }

  public static TlsRedis start(TestCertificates certificates) {
    int port = FreePorts.next();
    try {
      RedisServer server =
          RedisServer.newRedisServer()
              // the one extracted binary, started through the busy-file retry (RedisBinary)
              .executableProvider(RedisBinary.provider())
              .bind("127.0.0.1")
              .port(0)
              .setting("tls-port " + port)
              .setting("tls-cert-file " + certificates.serverCertificate())
              .setting("tls-key-file " + certificates.serverKey())
              .setting("tls-ca-cert-file " + certificates.caCertificate())
              .setting("tls-auth-clients no")
              .setting("save \"\"")
              .setting("appendonly no")
              .soutListener(line -> LOG.debug("redis tls :{} {}", port, line))
              .serrListener(line -> LOG.debug("redis tls :{} (stderr) {}", port, line))
              .build();
      RedisBinary.start(
          () -> {
            server.start();
            return server;
          });
      return new TlsRedis(port, server, certificates);
    } catch (IOException e) {
      throw new UncheckedIOException("could not start embedded Redis with TLS on port " + port, e);
    }
  }

  /** {@code rediss://localhost:port}: the host name the server certificate holds. */
  @Override
  public String url() {
    return "rediss://localhost:" + port;
  }

  public int port() {
    return port;
  }

  /** A plain-string client over TLS, trusting the test CA through a PKCS12 truststore. */
  @Override
  public RedissonClient connect() {
    Config config = new Config();
    config.setCodec(StringCodec.INSTANCE);
    try {
      config
          .useSingleServer()
          .setAddress(url())
          .setSslTruststore(certificates.caTruststore().toUri().toURL())
          .setSslTruststorePassword(TestCertificates.STORE_PASSWORD)
          .setConnectionPoolSize(4)
          .setConnectionMinimumIdleSize(1);
    } catch (java.net.MalformedURLException e) {
      throw new IllegalStateException(e);
    }
    return Redisson.create(config);
  }

  @Override
  public void loseData() {
    throw new UnsupportedOperationException("loseData: not needed by the TLS tests");
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (IOException e) {
      throw new UncheckedIOException("could not stop embedded Redis on port " + port, e);
    }
  }
}
