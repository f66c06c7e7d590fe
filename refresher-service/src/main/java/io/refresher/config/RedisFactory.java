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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;
import org.redisson.config.SingleServerConfig;

/**
 * The Redis that holds the cache. The URL has the form {@code redis://[user:password@]host:port[/db]}
 * ({@code rediss://} for TLS); credentials in it are passed to Redisson and never logged.
 *
 * <p>{@code mode: cluster} connects to a Redis Cluster: the URL is then a comma-separated list of
 * seed nodes ({@code redis://:pw@node-a:6379,redis://node-b:6379}); credentials are taken from the
 * first URL that has them, and the database must be 0. Reads and writes always go to masters: the
 * service's reads (metadata, fences, due times) must see its own writes.
 */
public class RedisFactory {

  /** Standalone server, or Redis Cluster. */
  public enum Mode {
    SINGLE,
    CLUSTER;

    @com.fasterxml.jackson.annotation.JsonCreator
    public static Mode fromJson(String name) {
      return valueOf(name.trim().toUpperCase(java.util.Locale.ROOT));
    }
  }

  @NotBlank private String url = "redis://127.0.0.1:6379";

  @NotNull private Mode mode = Mode.SINGLE;

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
  public Mode getMode() {
    return mode;
  }

  @JsonProperty
  public void setMode(Mode mode) {
    this.mode = mode;
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
  /**
   * How long the epoch guard's probe waits for Redis: the command timeout, at most 500 ms. A
   * Redis that does not answer a marker read within it is taken as unreachable, and commands fail
   * fast until the next probe (100 ms later) succeeds.
   */
  public java.time.Duration probeTimeout() {
    return java.time.Duration.ofMillis(Math.min(timeout.toMilliseconds(), 500));
  }

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

  @ValidationMethod(
      message =
          "url must look like redis://[user:password@]host:port[/db] or rediss://...; with mode cluster, a comma-separated list of such URLs with database 0")
  public boolean isUrlValid() {
    try {
      List<ParsedUrl> nodes = parseAll();
      return mode == Mode.CLUSTER ? nodes.stream().allMatch(node -> node.database() == 0) : nodes.size() == 1;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** The URL(s) with any password left out, for logs. */
  public String redactedUrl() {
    try {
      StringBuilder text = new StringBuilder();
      for (ParsedUrl parsed : parseAll()) {
        if (text.length() > 0) {
          text.append(',');
        }
        text.append(parsed.scheme()).append("://").append(parsed.host()).append(':').append(parsed.port());
        if (mode == Mode.SINGLE) {
          text.append('/').append(parsed.database());
        }
      }
      return (mode == Mode.CLUSTER ? "cluster " : "") + text;
    } catch (IllegalArgumentException e) {
      return "<invalid redis url>";
    }
  }

  /**
   * Reconnect quickly after Redis comes back (Redisson's default starts at 100 ms and doubles up to
   * 10 s): a Redis that restarted empty must be noticed, and its refill started, within a second.
   */
  private static final org.redisson.config.DelayStrategy RECONNECTION_DELAY =
      new org.redisson.config.EqualJitterDelay(java.time.Duration.ofMillis(20), java.time.Duration.ofSeconds(2));

  /**
   * The delay before a failed command's one retry, 10 ms. It also sets the tick of Redisson's
   * timer (the smaller of it and the command timeout), on which the rate limiter's waiters wake
   * up: with the default (about a second), the timer ticks every 100 ms and a refresh waiting for
   * its datasource's rate permit waits up to 100 ms too long, a third of the bound lost at 40/s.
   */
  private static final org.redisson.config.DelayStrategy RETRY_DELAY =
      new org.redisson.config.ConstantDelay(java.time.Duration.ofMillis(10));

  public RedissonClient build() {
    return build(null);
  }

  /**
   * @param connections told of every (re)connection and disconnection, so that a Redis that comes
   *     back is looked at at once (null: nobody)
   */
  public RedissonClient build(org.redisson.connection.ConnectionListener connections) {
    List<ParsedUrl> nodes = parseAll();
    Config config = new Config();
    if (connections != null) {
      config.setConnectionListener(connections);
    }

    // Values must be plain strings that any application can GET: never Redisson's default Kryo codec.
    config.setCodec(StringCodec.INSTANCE);
    config.setNettyThreads(
        nettyThreads > 0 ? nettyThreads : 2 * Runtime.getRuntime().availableProcessors());
    config.setUseScriptCache(true);
    ParsedUrl credentials =
        nodes.stream().filter(node -> node.password() != null).findFirst().orElse(nodes.get(0));
    if (mode == Mode.CLUSTER) {
      ClusterServersConfig cluster = config.useClusterServers();
      nodes.forEach(node -> cluster.addNodeAddress(node.address()));
      cluster
          .setReadMode(ReadMode.MASTER)
          .setTimeout((int) timeout.toMilliseconds())
          .setConnectTimeout((int) connectTimeout.toMilliseconds())
          .setMasterConnectionPoolSize(connectionPoolSize)
          .setMasterConnectionMinimumIdleSize(Math.min(8, connectionPoolSize))
          .setRetryAttempts(1)
          .setReconnectionDelay(RECONNECTION_DELAY)
          .setRetryDelay(RETRY_DELAY)
          .setPingConnectionInterval(5_000);
      if (credentials.password() != null) {
        cluster.setPassword(credentials.password());
        if (credentials.user() != null) {
          cluster.setUsername(credentials.user());
        }
      }
      return Redisson.create(config);
    }
    ParsedUrl parsed = nodes.get(0);
    SingleServerConfig server = config.useSingleServer();
    if (parsed.password() != null) {
      server.setPassword(parsed.password());
      if (parsed.user() != null) {
        server.setUsername(parsed.user());
      }
    }
    server
        .setAddress(parsed.address())
        .setDatabase(parsed.database())
        .setTimeout((int) timeout.toMilliseconds())
        .setConnectTimeout((int) connectTimeout.toMilliseconds())
        .setConnectionPoolSize(connectionPoolSize)
        .setConnectionMinimumIdleSize(Math.min(8, connectionPoolSize))
        .setRetryAttempts(1)
        .setReconnectionDelay(RECONNECTION_DELAY)
        .setRetryDelay(RETRY_DELAY)
        .setPingConnectionInterval(5_000);
    return Redisson.create(config);
  }

  List<ParsedUrl> parseAll() {
    List<ParsedUrl> nodes = new ArrayList<>();
    for (String part : url.split(",")) {
      if (!part.isBlank()) {
        nodes.add(parse(part.trim()));
      }
    }
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("no URL");
    }
    return nodes;
  }

  static ParsedUrl parse(String url) {
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

  /**
   * Percent-decoding only, as URIs are encoded (RFC 3986). Not {@code URLDecoder}, which decodes
   * HTML form data and turns {@code +} into a space: a password with a {@code +} then failed to
   * authenticate. {@code %2B} still means {@code +}.
   */
  private static String decode(String part) {
    return URLDecoder.decode(part.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  record ParsedUrl(String scheme, String host, int port, int database, String user, String password) {
    String address() {
      return scheme + "://" + host + ":" + port;
    }
  }

  @Override
  public String toString() {
    return "RedisFactory{url=" + redactedUrl() + "}";
  }
}
