package io.refresher.api;

import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.server.ServerFactory;
import io.dropwizard.core.server.SimpleServerFactory;
import io.dropwizard.jetty.ConnectorFactory;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.dropwizard.jetty.MutableServletContextHandler;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.http.UriCompliance;

/**
 * Lets a key that contains {@code /} be addressed with {@code %2F} in the admin API's paths.
 *
 * <p>Keys travel as the rest of the path after {@code /v1/keys/}. A raw slash works ({@code
 * /v1/keys/catalog/electronics}), but a key whose last segment is {@code refresh} would then be
 * read as the refresh action; encoding its slashes ({@code a%2Frefresh}) removes the ambiguity.
 * Jetty 12 refuses {@code %2F} and {@code %25} by default as ambiguous, and backslashes and
 * encoded control characters as suspicious (a bare 400 before the application sees the request,
 * where the key rules should answer with a JSON error naming the key); the admin API has no
 * static files or path-based security that an encoded slash could trick, so it is allowed here.
 * So are encoded dot segments ({@code %2E%2E}): the API reads the key from the path as sent, and
 * the key rules refuse {@code .} and {@code ..} with 422, as they do when the dots come raw.
 */
public final class KeyPaths {

  private KeyPaths() {}

  public static void allowEncodedSlashes(ServerFactory serverFactory, MutableServletContextHandler applicationContext) {
    UriCompliance compliance =
        UriCompliance.DEFAULT.with(
            "refresher-keys",
            UriCompliance.Violation.AMBIGUOUS_PATH_SEGMENT,
            UriCompliance.Violation.AMBIGUOUS_PATH_SEPARATOR,
            UriCompliance.Violation.AMBIGUOUS_PATH_ENCODING,
            UriCompliance.Violation.SUSPICIOUS_PATH_CHARACTERS);
    List<ConnectorFactory> connectors = new ArrayList<>();
    if (serverFactory instanceof DefaultServerFactory server) {
      connectors.addAll(server.getApplicationConnectors());
    } else if (serverFactory instanceof SimpleServerFactory server) {
      connectors.add(server.getConnector());
    }
    for (ConnectorFactory connector : connectors) {
      if (connector instanceof HttpConnectorFactory http) {
        http.setUriCompliance(compliance);
      }
    }
    applicationContext.getServletHandler().setDecodeAmbiguousURIs(true);
  }
}
