package io.refresher.http;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.httpclient5.HttpClientMetricNameStrategy;
import com.codahale.metrics.httpclient5.InstrumentedHttpClientConnectionManager;
import com.codahale.metrics.httpclient5.InstrumentedHttpRequestExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.DefaultHttpClientConnectionOperator;
import org.apache.hc.client5.http.ssl.ClientTlsStrategyBuilder;
import org.apache.hc.client5.http.ssl.HostnameVerificationPolicy;
import org.apache.hc.client5.http.ssl.TlsSocketStrategy;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.URIScheme;
import org.apache.hc.core5.http.config.RegistryBuilder;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.http.message.BasicHeader;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * The HTTP client of one endpoint: its own connection pool ({@code maxConnections}, all of them
 * for its one host), its timeouts, its TLS trust, its default headers, and its metrics.
 *
 * <p>The client does nothing on its own: no compression asked for (a body is read, bounded and
 * stored as sent; with transparent decompression, a server's gzip also rewrote its ETags, and the
 * size known from Content-Length was lost), no automatic retries (the refresh path retries with
 * backoff, and a retried request would count twice against the endpoint's load bound), no
 * redirects (a {@code 3xx} is a status like any other: not accepted unless listed), no cookies, no
 * authentication challenges answered, no proxy from system properties.
 *
 * <p>Metrics, under {@code refresher.http.<endpoint>.}: {@code requests} (a timer, from sending
 * the request to the response's head), {@code exchange-errors} (a meter: I/O failures once
 * connected), and the pool's gauges {@code connections.available}, {@code .leased}, {@code .max}
 * and {@code .pending}. The pool's gauges come from metrics-httpclient5, which names them under a
 * fixed prefix of its own; they are registered again here under the endpoint's prefix, so that one
 * prefix covers an endpoint.
 */
final class EndpointClient implements AutoCloseable {

  static final String METRICS_PREFIX = "refresher.http.";

  private final HttpEndpointSettings settings;
  private final CloseableHttpClient client;
  private final InstrumentedHttpClientConnectionManager pool;
  private final MetricRegistry metrics;
  private final List<String> registered = new ArrayList<>();

  private EndpointClient(HttpEndpointSettings settings, MetricRegistry metrics) {
    this.settings = settings;
    this.metrics = metrics;
    String prefix = METRICS_PREFIX + settings.name();
    TlsSocketStrategy tls =
        ClientTlsStrategyBuilder.create()
            .setSslContext(TlsTrust.context(settings.caCertificate(), settings.name()))
            .setHostVerificationPolicy(HostnameVerificationPolicy.BOTH)
            .buildClassic();
    MetricRegistry poolMetrics = new MetricRegistry();
    this.pool =
        InstrumentedHttpClientConnectionManager.builder(poolMetrics)
            .name(settings.name())
            .httpClientConnectionOperator(
                new DefaultHttpClientConnectionOperator(
                    null, null, RegistryBuilder.<TlsSocketStrategy>create().register(URIScheme.HTTPS.id, tls).build()))
            .build();
    pool.setMaxTotal(settings.maxConnections());
    pool.setDefaultMaxPerRoute(settings.maxConnections());
    pool.setDefaultConnectionConfig(
        ConnectionConfig.custom()
            .setConnectTimeout(Timeout.of(settings.connectTimeout()))
            .setSocketTimeout(Timeout.of(settings.readTimeout()))
            .build());
    pool.setDefaultSocketConfig(SocketConfig.custom().setSoTimeout(Timeout.of(settings.readTimeout())).build());
    for (Map.Entry<String, Metric> gauge : poolMetrics.getMetrics().entrySet()) {
      String name = gauge.getKey();
      String suffix = name.substring(name.lastIndexOf('.') + 1).replace("-connections", "");
      register(prefix + ".connections." + suffix, gauge.getValue());
    }
    HttpClientMetricNameStrategy names =
        new HttpClientMetricNameStrategy() {
          @Override
          public String getNameFor(String name, HttpRequest request) {
            return prefix + ".requests";
          }

          @Override
          public String getNameFor(String name, Exception exception) {
            return prefix + ".exchange-errors";
          }
        };
    registered.add(prefix + ".requests");
    registered.add(prefix + ".exchange-errors");
    List<org.apache.hc.core5.http.Header> headers = new ArrayList<>();
    settings.headers().forEach((header, value) -> headers.add(new BasicHeader(header, value)));
    this.client =
        HttpClients.custom()
            .setConnectionManager(pool)
            .setRequestExecutor(new InstrumentedHttpRequestExecutor(metrics, names, settings.name()))
            .setDefaultHeaders(headers)
            .setUserAgent("refresher")
            .setDefaultRequestConfig(
                RequestConfig.custom()
                    .setRedirectsEnabled(false)
                    .setAuthenticationEnabled(false)
                    .setResponseTimeout(Timeout.of(settings.readTimeout()))
                    .build())
            .disableAutomaticRetries()
            .disableRedirectHandling()
            .disableCookieManagement()
            .disableAuthCaching()
            .disableContentCompression()
            .disableConnectionState()
            .evictIdleConnections(TimeValue.ofMinutes(1))
            .build();
  }

  /**
   * @throws IllegalStateException when the CA file cannot be read (naming the endpoint and file)
   */
  static EndpointClient open(HttpEndpointSettings settings, MetricRegistry metrics) {
    return new EndpointClient(settings, metrics);
  }

  private void register(String name, Metric metric) {
    metrics.register(name, (Gauge<?>) metric);
    registered.add(name);
  }

  HttpEndpointSettings settings() {
    return settings;
  }

  CloseableHttpClient client() {
    return client;
  }

  /** Closes the client and its connections at once (a refresh in flight fails), and removes its metrics. */
  @Override
  public void close() {
    client.close(CloseMode.IMMEDIATE);
    pool.close(CloseMode.IMMEDIATE);
    registered.forEach(metrics::remove);
  }
}
