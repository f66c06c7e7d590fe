package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import io.refresher.http.HttpEndpointSettings;
import io.refresher.refresh.LoadBound;
import java.net.URI;
import java.nio.file.Path;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP endpoint under {@code httpEndpoints:} in {@code config.yml}: where HTTP sources send
 * their requests, with its own connection pool, timeouts, default headers and load bound.
 *
 * <pre>
 * httpEndpoints:
 *   catalog-api:
 *     baseUrl: https://catalog.internal:8443/api   # scheme, host, port and base path: fixed here
 *     caCertificate: /etc/refresher/catalog-ca.pem  # optional: trust only this CA (PEM)
 *     maxConnections: 16
 *     connectTimeout: 1s
 *     readTimeout: 5s
 *     headers:
 *       Authorization: "Bearer ${CATALOG_API_TOKEN}"   # secrets from the environment
 *     maxQueriesPerSecond: 50   # across all replicas; 0: not bounded
 *     maxConcurrent: 8          # across all replicas; 0: not bounded
 *     maxWait: 2s
 * </pre>
 *
 * <p>Header values are secrets as far as the service is concerned: they are never logged and never
 * shown by the API.
 */
public class HttpEndpointFactory {

  @NotBlank @JsonProperty private String baseUrl;

  /** PEM file of the CA certificate(s) the server's certificate is checked against; null: the JVM's. */
  @JsonProperty private String caCertificate;

  @Min(1)
  @Max(1000)
  @JsonProperty
  private int maxConnections = 16;

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = 5, unit = TimeUnit.MINUTES)
  @JsonProperty
  private Duration connectTimeout = Duration.seconds(2);

  /** Longest wait for any one read from the server (a stalled response); the source's timeout caps the whole request. */
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  @MaxDuration(value = 10, unit = TimeUnit.MINUTES)
  @JsonProperty
  private Duration readTimeout = Duration.seconds(10);

  @NotNull @JsonProperty private Map<String, String> headers = new LinkedHashMap<>();

  @Min(0)
  @Max(1_000_000)
  @JsonProperty
  private int maxQueriesPerSecond = 0;

  /**
   * Consistency audit samples per second on this endpoint, all replicas together (each runs its source
   * once or twice, within the load bound); 0: not audited.
   */
  @DecimalMin("0")
  @DecimalMax("10000")
  @JsonProperty
  private double auditSamplesPerSecond = 0;

  @Min(0)
  @Max(100_000)
  @JsonProperty
  private int maxConcurrent = 0;

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  @JsonProperty
  private Duration maxWait = Duration.seconds(10);

  public String getBaseUrl() {
    return baseUrl;
  }

  public void setBaseUrl(String baseUrl) {
    this.baseUrl = baseUrl;
  }

  public String getCaCertificate() {
    return caCertificate;
  }

  public void setCaCertificate(String caCertificate) {
    this.caCertificate = caCertificate;
  }

  public int getMaxConnections() {
    return maxConnections;
  }

  public void setMaxConnections(int maxConnections) {
    this.maxConnections = maxConnections;
  }

  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  public void setConnectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

  public Duration getReadTimeout() {
    return readTimeout;
  }

  public void setReadTimeout(Duration readTimeout) {
    this.readTimeout = readTimeout;
  }

  public Map<String, String> getHeaders() {
    return headers;
  }

  public void setHeaders(Map<String, String> headers) {
    this.headers = headers;
  }

  public double getAuditSamplesPerSecond() {
    return auditSamplesPerSecond;
  }

  public void setAuditSamplesPerSecond(double auditSamplesPerSecond) {
    this.auditSamplesPerSecond = auditSamplesPerSecond;
  }

  public int getMaxQueriesPerSecond() {
    return maxQueriesPerSecond;
  }

  public void setMaxQueriesPerSecond(int maxQueriesPerSecond) {
    this.maxQueriesPerSecond = maxQueriesPerSecond;
  }

  public int getMaxConcurrent() {
    return maxConcurrent;
  }

  public void setMaxConcurrent(int maxConcurrent) {
    this.maxConcurrent = maxConcurrent;
  }

  public Duration getMaxWait() {
    return maxWait;
  }

  public void setMaxWait(Duration maxWait) {
    this.maxWait = maxWait;
  }

  /** The endpoint as the HTTP adapter takes it; the URL was checked by the validation. */
  public HttpEndpointSettings settings(String name) {
    return new HttpEndpointSettings(
        name,
        URI.create(baseUrl),
        caCertificate == null ? null : Path.of(caCertificate),
        maxConnections,
        connectTimeout.toJavaDuration(),
        readTimeout.toJavaDuration(),
        headers);
  }

  /** This endpoint's load bound, kept under its name like a datasource's. */
  public LoadBound loadBound(String name) {
    return new LoadBound(name, maxQueriesPerSecond, maxConcurrent, maxWait.toJavaDuration());
  }

  /** Never the header values: they hold tokens. */
  @Override
  public String toString() {
    return "HttpEndpointFactory{baseUrl=" + baseUrl + ", headers=" + headers.keySet() + "}";
  }
}
