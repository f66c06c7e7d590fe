package io.refresher.http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.hc.core5.ssl.SSLContexts;

/**
 * The TLS context of an endpoint: the JVM's trust store, or exactly the CA certificates of a PEM
 * file (an internal CA: then a certificate from any public CA is refused). Host names are verified
 * either way, by the client. (The config package has its own reader for Redis and PostgreSQL; this
 * adapter cannot depend on it.)
 */
final class TlsTrust {

  private TlsTrust() {}

  /**
   * @param pem the CA certificates to trust; null for the JVM's trust store
   * @throws IllegalStateException naming the endpoint and the file when it cannot be read or holds
   *     no certificate
   */
  static SSLContext context(Path pem, String endpoint) {
    if (pem == null) {
      return SSLContexts.createSystemDefault();
    }
    String setting = "httpEndpoints." + endpoint + ".caCertificate " + pem;
    try (InputStream in = Files.newInputStream(pem)) {
      Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certificates.isEmpty()) {
        throw new IllegalStateException(setting + " holds no certificate (expected PEM: -----BEGIN CERTIFICATE-----)");
      }
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int index = 0;
      for (Certificate certificate : certificates) {
        store.setCertificateEntry("ca-" + index++, certificate);
      }
      TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException(setting + " could not be read as PEM certificates: " + e.getMessage(), e);
    }
  }
}
