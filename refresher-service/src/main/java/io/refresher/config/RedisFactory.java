package io.refresher.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.dropwizard.validation.ValidationMethod;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.redisson.config.SingleServerConfig;

/**
 * The Redis that holds the cache. The URL has the form {@code redis://[user:password@]host:port[/db]}
 * ({@code rediss://} for TLS); credentials in it are passed to Redisson and never logged.
 */
public class RedisFactory {

  @NotBlank private String url = "redis://127.0.0.1:6379";

  @NotNull
  @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
  private Duration timeout = Duration.seconds(3);

  @NotNull
  @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
  private Duration connectTimeout = Duration.seconds(5);

  @Min(1)
  @Max(1000)
  private int connectionPoolSize = 64;

  @Min(0)
  @Max(256)
  private int nettyThreads = 0;

  @JsonProperty
  public String getUrl() {
    return url;
  }

  @JsonProperty
  public void setUrl(String url) {
    this.url = url;
  }

  @JsonProperty
  public Duration getTimeout() {
    return timeout;
  }

  @JsonProperty
  public void setTimeout(Duration timeout) {
    this.timeout = timeout;
  }

  @JsonProperty
  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  @JsonProperty
  public void setConnectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

  @JsonProperty
  public int getConnectionPoolSize() {
    return connectionPoolSize;
  }

  @JsonProperty
  public void setConnectionPoolSize(int connectionPoolSize) {
    this.connectionPoolSize = connectionPoolSize;
  }

  /** Redisson's I/O threads; 0 means twice the number of cores. */
  @JsonProperty
  public int getNettyThreads() {
    return nettyThreads;
  }

  @JsonProperty
  public void setNettyThreads(int nettyThreads) {
    this.nettyThreads = nettyThreads;
  }

  @ValidationMethod(message = "url must look like redis://[user:password@]host:port[/db] or rediss://...")
  public boolean isUrlValid() {
    try {
      parse();
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** The URL with any password replaced, for logs. */
  public String redactedUrl() {
    try {
      ParsedUrl parsed = parse();
      return parsed.scheme() + "://" + parsed.host() + ":" + parsed.port() + "/" + parsed.database();
    } catch (IllegalArgumentException e) {
      return "<invalid redis url>";
    }
  }

  public RedissonClient build() {
    ParsedUrl parsed = parse();
    Config config = new Config();
    // Values must be plain strings that any application can GET: never Redisson's default Kryo codec.
    config.setCodec(StringCodec.INSTANCE);
    config.setNettyThreads(
        nettyThreads > 0 ? nettyThreads : 2 * Runtime.getRuntime().availableProcessors());
    config.setUseScriptCache(true);
    SingleServerConfig server = config.useSingleServer();
    if (parsed.password() != null) {
      server.setPassword(parsed.password());
      if (parsed.user() != null) {
        server.setUsername(parsed.user());
      }
    }
    server
        .setAddress(parsed.scheme() + "://" + parsed.host() + ":" + parsed.port())
        .setDatabase(parsed.database())
        .setTimeout((int) timeout.toMilliseconds())
        .setConnectTimeout((int) connectTimeout.toMilliseconds())
        .setConnectionPoolSize(connectionPoolSize)
        .setConnectionMinimumIdleSize(Math.min(8, connectionPoolSize))
        .setRetryAttempts(1)
        .setPingConnectionInterval(5_000);
    return Redisson.create(config);
  }

  ParsedUrl parse() {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("not a URI", e);
    }
    String scheme = uri.getScheme();
    if (!"redis".equals(scheme) && !"rediss".equals(scheme)) {
      throw new IllegalArgumentException("scheme must be redis or rediss");
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("host is missing");
    }
    int port = uri.getPort() == -1 ? 6379 : uri.getPort();
    int database = 0;
    String path = uri.getPath();
    if (path != null && path.length() > 1) {
      database = Integer.parseInt(path.substring(1));
    }
    String user = null;
    String password = null;
    String userInfo = uri.getRawUserInfo();
    if (userInfo != null && !userInfo.isEmpty()) {
      int colon = userInfo.indexOf(':');
      if (colon >= 0) {
        user = colon == 0 ? null : decode(userInfo.substring(0, colon));
        password = decode(userInfo.substring(colon + 1));
      } else {
        password = decode(userInfo);
      }
    }
    return new ParsedUrl(scheme, uri.getHost(), port, database, user, password);
  }

  private static String decode(String part) {
    return URLDecoder.decode(part, StandardCharsets.UTF_8);
  }

  record ParsedUrl(String scheme, String host, int port, int database, String user, String password) {}

  @Override
  public String toString() {
    return "RedisFactory{url=" + redactedUrl() + "}";
  }
}
