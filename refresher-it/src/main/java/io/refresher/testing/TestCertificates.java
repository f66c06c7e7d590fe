package io.refresher.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A certificate authority and a server certificate for {@code localhost}, made by the test with the
 * JDK's own {@code keytool} (no BouncyCastle, no openssl needed; its six commands in one JVM), as PEM files that PostgreSQL and
 * Redis load ({@link #serverCertificate()}, {@link #serverKey()}) and that clients trust ({@link
 * #caCertificate()}; {@link #caTruststore()} holds the same CA as a PKCS12 truststore).
 *
 * <p>The server certificate names only the DNS name {@code localhost} (no IP address), so a client
 * that verifies host names accepts {@code localhost} and refuses {@code 127.0.0.1}. Keys are EC
 * P-256; everything is valid for two days.
 */
public final class TestCertificates {

  /** The password of the PKCS12 files; not a secret (test material). */
  public static final String STORE_PASSWORD = "test-store-password";

  private final Path directory;

  private TestCertificates(Path directory) {
    this.directory = directory;
  }

  /** A new CA (named {@code commonName}) and a server certificate for localhost it signed, in {@code directory}. */
  public static TestCertificates create(Path directory, String commonName) {
    TestCertificates certificates = new TestCertificates(directory);
    certificates.make(commonName);
    return certificates;
  }

  /** The CA's certificate (PEM): what a client trusts. */
  public Path caCertificate() {
    return directory.resolve("ca.pem");
  }

  /** The CA's certificate in a PKCS12 truststore ({@link #STORE_PASSWORD}). */
  public Path caTruststore() {
    return directory.resolve("ca-truststore.p12");
  }

  /** The server's certificate (PEM), for localhost, signed by the CA. */
  public Path serverCertificate() {
    return directory.resolve("server.pem");
  }

  /** The server's private key (unencrypted PKCS#8 PEM, readable by its owner only, as PostgreSQL demands). */
  public Path serverKey() {
    return directory.resolve("server.key");
  }

  private void make(String commonName) {
    try {
      Files.createDirectories(directory);
      Path ca = directory.resolve("ca.p12");
      Path server = directory.resolve("server.p12");
      Path request = directory.resolve("server.csr");
      keytool(
          List.of("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + commonName,
              "-ext", "bc:c=ca:true", "-ext", "ku:c=keyCertSign,cRLSign", "-validity", "2", "-keystore", ca.toString()),
          List.of("-exportcert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-file", caCertificate().toString()),
          List.of("-importcert", "-noprompt", "-alias", "ca", "-file", caCertificate().toString(), "-keystore",
              caTruststore().toString()),
          List.of("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
              "-validity", "2", "-keystore", server.toString()),
          List.of("-certreq", "-alias", "server", "-keystore", server.toString(), "-file", request.toString()),
          List.of("-gencert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-infile", request.toString(),
              "-outfile", serverCertificate().toString(), "-validity", "2", "-ext", "san=dns:localhost",
              "-ext", "eku=serverAuth", "-ext", "ku:c=digitalSignature"));
      writePrivateKey(server, serverKey());
    } catch (IOException e) {
      throw new UncheckedIOException("could not make test certificates in " + directory, e);
    }
  }

  private static void writePrivateKey(Path keystore, Path pem) throws IOException {
    Key key;
    try (InputStream in = Files.newInputStream(keystore)) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(in, STORE_PASSWORD.toCharArray());
      key = store.getKey("server", STORE_PASSWORD.toCharArray());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("could not read the server key from " + keystore, e);
    }
    String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded());
    Files.writeString(pem, "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n");
    Files.setPosixFilePermissions(pem, PosixFilePermissions.fromString("rw-------"));
  }

  /** Separates the commands of one {@link KeytoolBatch} run. */
  private static final String NEXT_COMMAND = "--next-keytool-command--";

  /**
   * Runs the keytool commands in order, in one JVM of their own ({@link KeytoolBatch}: the JDK's
   * keytool, one command after the other, stopping at the first that fails), not one JVM each:
   * starting a JVM is most of what a keytool command costs.
   */
  @SafeVarargs
  private static void keytool(List<String>... commands) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("--add-exports");
    command.add("java.base/sun.security.tools.keytool=ALL-UNNAMED");
    command.add("-cp");
    command.add(classpathOfThisClass());
    command.add(KeytoolBatch.class.getName());
    for (List<String> arguments : commands) {
      command.addAll(arguments);
      command.addAll(List.of("-storetype", "PKCS12", "-storepass", STORE_PASSWORD));
      command.add(NEXT_COMMAND);
    }
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("keytool did not finish within 60 s: " + command);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IllegalStateException("interrupted while running keytool", e);
    }
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.exitValue() != 0) {
      throw new IllegalStateException("keytool failed (" + process.exitValue() + "): " + output + "; commands " + command);
    }
  }

  private static String classpathOfThisClass() {
    try {
      return Path.of(TestCertificates.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException("where is " + TestCertificates.class + "?", e);
    }
  }

  /**
   * The keytool commands of one {@link #make}, separated by {@link #NEXT_COMMAND}, run one after
   * the other by the JDK's keytool ({@code sun.security.tools.keytool.Main}, which exits the JVM
   * with status 1 when a command fails).
   */
  public static final class KeytoolBatch {
    private KeytoolBatch() {}

    public static void main(String[] args) throws Exception {
      java.lang.reflect.Method keytool = Class.forName("sun.security.tools.keytool.Main").getMethod("main", String[].class);
      List<String> arguments = new ArrayList<>();
      for (String arg : args) {
        if (arg.equals(NEXT_COMMAND)) {
          keytool.invoke(null, (Object) arguments.toArray(String[]::new));
          arguments.clear();
        } else {
          arguments.add(arg);
        }
      }
      if (!arguments.isEmpty()) {
        throw new IllegalArgumentException("a keytool command without " + NEXT_COMMAND + " after it: " + arguments);
      }
    }
  }
}
