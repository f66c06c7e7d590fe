package io.refresher.http;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One HTTP endpoint as configured ({@code httpEndpoints:}): where its sources' requests go and how.
 *
 * @param baseUrl scheme, host, port and base path; a source's path is appended to it
 * @param caCertificate PEM file of the CA certificates to trust; null for the JVM's trust store
 * @param headers default headers of every request (values may be secrets: never logged)
 */
public record HttpEndpointSettings(
    String name,
    URI baseUrl,
    Path caCertificate,
    int maxConnections,
    Duration connectTimeout,
    Duration readTimeout,
    Map<String, String> headers) {

  public HttpEndpointSettings {
    headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
  }

  @Override
  public String toString() {
    return "HttpEndpointSettings[name=" + name + ", baseUrl=" + baseUrl + ", headers=" + headers.keySet() + "]";
  }
}
