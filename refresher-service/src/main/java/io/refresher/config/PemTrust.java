package io.refresher.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.TrustManagerFactory;

/** Trust managers that trust exactly the CA certificates of a PEM file (and not the JVM's defaults). */
final class PemTrust {

  private PemTrust() {}

  /**
   * @param setting the configuration key, for messages
   * @throws IllegalStateException naming the setting and the file when it cannot be read or holds no certificate
   */
  static TrustManagerFactory trustManagers(Path pem, String setting) {
    try (InputStream in = Files.newInputStream(pem)) {
      Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certificates.isEmpty()) {
        throw new IllegalStateException(setting + " " + pem + " holds no certificate (expected PEM: -----BEGIN CERTIFICATE-----)");
      }
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int index = 0;
      for (Certificate certificate : certificates) {
        store.setCertificateEntry("ca-" + index++, certificate);
      }
      TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      return factory;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException(setting + " " + pem + " could not be read as PEM certificates: " + e.getMessage(), e);
    }
  }
}
