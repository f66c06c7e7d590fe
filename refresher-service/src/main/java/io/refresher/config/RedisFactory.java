package io.refresher.config;

import com.codahale.metrics.Gauge;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.AutoCloseableManager;
import io.refresher.health.RedisHealthCheck;
import io.refresher.redis.RedisEvictionPolicy;
import io.refresher.redis.RedisReachability;
import java.time.InstantSource;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.dropwizard.validation.ValidationMethod;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.BaseConfig;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;
import org.redisson.config.SentinelServersConfig;
import org.redisson.config.SingleServerConfig;
import org.redisson.config.SslVerificationMode;
import org.redisson.connection.ConnectionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis that holds the cache. The URL has the form {@code redis://[user:password@]host:port[/db]}
 * ({@code rediss://} for TLS); credentials in it are passed to Redisson and never logged.
 *
 * <p>{@code mode: cluster} connects to a Redis Cluster: the URL is then a comma-separated list of
 * seed nodes ({@code redis://:pw@node-a:6379,redis://node-b:6379}); credentials are taken from the
 * first URL that has them, and the database must be 0. Reads and writes always go to masters: the
 * service's reads (metadata, fences, due times) must see its own writes.
 *
 * <p>{@code mode: sentinel} asks Redis Sentinel for the primary of {@code masterName} and follows
 * it through failovers: {@code sentinels} lists the Sentinels ({@code host:port}, a list or one
 * comma-separated string, as an environment variable gives it). The URL then gives only the
 * scheme, credentials and database of the primary and replicas; its host and port are not used.
 * {@code sentinelUsername}/{@code sentinelPassword} authenticate to the Sentinels (secrets: never
 * logged; unset, none). Reads and writes go to the primary, as in the other modes.
 *
 * <p>TLS ({@code rediss://}): the server's certificate is verified against the JVM's trust store,
 * or against {@code caCertificate} (a PEM file of CA certificates, as Kubernetes secrets and cloud
 * providers hand them out) or {@code truststore} (a PKCS12 or JKS file, with {@code
 * truststorePassword}). {@code tlsVerification: strict} (the default) also requires the certificate
 * to name the host of the URL; {@code ca-only} accepts any name the CA signed, for servers reached
 * by an address their certificate does not hold. Verification cannot be turned off.
 */
public class RedisFactory {

  private static final Logger LOG = LoggerFactory.getLogger(RedisFactory.class);

  /** Standalone server, Redis Cluster, or a primary with replicas behind Sentinel. */
  public enum Mode {
    SINGLE,
    CLUSTER,
    SENTINEL;

    @com.fasterxml.jackson.annotation.JsonCreator
    public static Mode fromJson(String name) {
      return valueOf(name.trim().toUpperCase(java.util.Locale.ROOT));
    }
  }

  /** How much of the server's certificate a TLS connection verifies. */
  public enum TlsVerification {
    /** Signed by a trusted CA and naming the host of the URL. */
    STRICT,
    /** Signed by a trusted CA, whatever host it names. */
    CA_ONLY;

    @com.fasterxml.jackson.annotation.JsonCreator
    public static TlsVerification fromJson(String name) {
      return valueOf(name.trim().replace('-', '_').toUpperCase(java.util.Locale.ROOT));
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

  /**
   * Epoch checks in a row without an answer before Redis counts as unreachable and commands fail
   * fast: one missed check is a busy client as often as a Redis that went away ({@link
   * io.refresher.redis.RedisProbe}).
   */
  @Min(1)
  @Max(100)
  private int probeMisses = 3;

  /** PEM file of the CA certificate(s) that sign the server's; null: the JVM's trust store. */
  private String caCertificate;

  /** PKCS12 or JKS truststore file, instead of {@link #caCertificate}; null: none. */
  private String truststore;

  /** The truststore's password (a secret: never logged); null for none. */
  private String truststorePassword;

  @NotNull private TlsVerification tlsVerification = TlsVerification.STRICT;

  /** {@code mode: sentinel}: the name the Sentinels monitor the primary by. */
  private String masterName;

  /** {@code mode: sentinel}: the Sentinels, {@code host:port} each. */
  private List<String> sentinels = new ArrayList<>();

  /** {@code mode: sentinel}: the Sentinels' own user and password (secrets: never logged); null for none. */
  private String sentinelUsername;

  private String sentinelPassword;

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

  /**
   * How long the epoch guard's probe waits for Redis: the command timeout, at most 500 ms. A
   * Redis that leaves {@link #getProbeMisses()} probes in a row unanswered is taken as
   * unreachable, and commands fail fast until the next probe (100 ms later) succeeds.
   */
  public java.time.Duration probeTimeout() {
    return java.time.Duration.ofMillis(Math.min(timeout.toMilliseconds(), 500));
  }

  /** The epoch guard's probe: {@link #probeTimeout()} and {@link #getProbeMisses()}. */
  public io.refresher.redis.RedisProbe probe() {
    return new io.refresher.redis.RedisProbe(probeTimeout(), probeMisses);
  }

  @JsonProperty
  public int getProbeMisses() {
    return probeMisses;
  }

  @JsonProperty
  public void setProbeMisses(int probeMisses) {
    this.probeMisses = probeMisses;
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

  /** A PEM file of CA certificates for {@code rediss://}; null or blank for the JVM's trust store. */
  @JsonProperty
  public String getCaCertificate() {
    return caCertificate;
  }

  @JsonProperty
  public void setCaCertificate(String caCertificate) {
    this.caCertificate = blankToNull(caCertificate);
  }

  @JsonProperty
  public String getTruststore() {
    return truststore;
  }

  @JsonProperty
  public void setTruststore(String truststore) {
    this.truststore = blankToNull(truststore);
  }

  @JsonProperty
  public String getTruststorePassword() {
    return truststorePassword;
  }

  @JsonProperty
  public void setTruststorePassword(String truststorePassword) {
    this.truststorePassword = blankToNull(truststorePassword);
  }

  @JsonProperty
  public TlsVerification getTlsVerification() {
    return tlsVerification;
  }

  @JsonProperty
  public void setTlsVerification(TlsVerification tlsVerification) {
    this.tlsVerification = tlsVerification;
  }

  @JsonProperty
  public String getMasterName() {
    return masterName;
  }

  @JsonProperty
  public void setMasterName(String masterName) {
    this.masterName = blankToNull(masterName);
  }

  @JsonProperty
  public List<String> getSentinels() {
    return List.copyOf(sentinels);
  }

  /** Each entry may itself be a comma-separated list (one environment variable for all). */
  @JsonProperty
  @com.fasterxml.jackson.annotation.JsonFormat(
      with = com.fasterxml.jackson.annotation.JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
  public void setSentinels(List<String> sentinels) {
    List<String> addresses = new ArrayList<>();
    if (sentinels != null) {
      for (String entry : sentinels) {
        for (String part : entry == null ? new String[0] : entry.split(",")) {
          if (!part.isBlank()) {
            addresses.add(part.trim());
          }
        }
      }
    }
    this.sentinels = addresses;
  }

  @JsonProperty
  public String getSentinelUsername() {
    return sentinelUsername;
  }

  @JsonProperty
  public void setSentinelUsername(String sentinelUsername) {
    this.sentinelUsername = blankToNull(sentinelUsername);
  }

  @JsonProperty
  public String getSentinelPassword() {
    return sentinelPassword;
  }

  @JsonProperty
  public void setSentinelPassword(String sentinelPassword) {
    this.sentinelPassword = blankToNull(sentinelPassword);
  }

  @ValidationMethod(message = "mode sentinel needs masterName, the name the Sentinels monitor the primary by")
  public boolean isMasterNameSetForSentinel() {
    return mode != Mode.SENTINEL || masterName != null;
  }

  @ValidationMethod(
      message = "mode sentinel needs sentinels: at least one host:port (a list, or one comma-separated string)")
  public boolean isSentinelsSetForSentinel() {
    return mode != Mode.SENTINEL || !sentinels.isEmpty();
  }

  @ValidationMethod(message = "sentinels must each look like host:port with a port from 1 to 65535")
  public boolean isSentinelsValid() {
    try {
      sentinelAddresses();
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  @ValidationMethod(message = "sentinelUsername needs sentinelPassword")
  public boolean isSentinelUserWithPassword() {
    return sentinelUsername == null || sentinelPassword != null;
  }

  // Silently ignored settings hide mistakes: a sentinel setting without mode sentinel is one.
  @ValidationMethod(message = "masterName, sentinels, sentinelUsername and sentinelPassword are only for mode sentinel")
  public boolean isSentinelSettingOnlyForSentinel() {
    return mode == Mode.SENTINEL
        || (masterName == null && sentinels.isEmpty() && sentinelUsername == null && sentinelPassword == null);
  }

  /** The Sentinels as Redisson addresses, with the URL's scheme (TLS to the Sentinels too with rediss://). */
  List<String> sentinelAddresses() {
    String scheme;
    try {
      scheme = parseAll().get(0).scheme();
    } catch (IllegalArgumentException e) {
      scheme = "redis";
    }
    List<String> addresses = new ArrayList<>();
    for (String sentinel : sentinels) {
      int colon = sentinel.lastIndexOf(':');
      if (colon <= 0 || colon == sentinel.length() - 1 || sentinel.contains("/") || sentinel.contains("@")) {
        throw new IllegalArgumentException("not host:port: " + sentinel);
      }
      int port;
      try {
        port = Integer.parseInt(sentinel.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not host:port: " + sentinel, e);
      }
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("port out of range: " + sentinel);
      }
      addresses.add(scheme + "://" + sentinel);
    }
    return addresses;
  }

  /** An unset variable substituted as empty means "not set". */
  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }

  @ValidationMethod(message = "caCertificate and truststore are alternatives: set at most one")
  public boolean isOneTrustSource() {
    return caCertificate == null || truststore == null;
  }

  // A trust setting with a redis:// URL would silently do nothing: the connection is not encrypted.
  @ValidationMethod(message = "caCertificate and truststore need a rediss:// url (TLS); with redis:// nothing is encrypted")
  public boolean isTrustOnlyWithTls() {
    if (caCertificate == null && truststore == null) {
      return true;
    }
    try {
      return parseAll().stream().allMatch(node -> "rediss".equals(node.scheme()));
    } catch (IllegalArgumentException e) {
      return true; // the url rule reports it
    }
  }

  @ValidationMethod(message = "caCertificate must name a readable file")
  public boolean isCaCertificateReadable() {
    return caCertificate == null || Files.isReadable(Path.of(caCertificate));
  }

  @ValidationMethod(message = "truststore must name a readable file")
  public boolean isTruststoreReadable() {
    return truststore == null || Files.isReadable(Path.of(truststore));
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
      if (mode == Mode.SENTINEL) {
        return "sentinel master '" + masterName + "' via " + String.join(",", sentinels) + " (database "
            + parseAll().get(0).database() + ")";
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
   * The delay before a failed command's one retry, 220 ms. Redisson uses it for two more things:
   *
   * <ul>
   *   <li>how long a command may take to be written to its connection before it is retried (and,
   *       after the one retry, failed with "Command still hasn't been written into connection").
   *       When the machine is busy the client's I/O threads can be late by tens of milliseconds;
   *       with the 10 ms this was before, lock and value writes failed by the dozen exactly when
   *       the service was busiest ({@code BusyClientIT});
   *   <li>the tick of Redisson's timer, on which the rate limiter's waiters wake up: the smaller of
   *       this delay and the command timeout, {@code d}, gives a tick of {@code max(10, (d % 100) /
   *       2)} ms when {@code d} is not a multiple of 100 (else 50 or 100 ms). 220 ms keeps the 10 ms
   *       tick; a tick of 100 ms made a refresh waiting for its datasource's rate permit wait up to
   *       100 ms too long, a third of the bound lost at 40/s.
   * </ul>
   */
  private static final org.redisson.config.DelayStrategy RETRY_DELAY =
      new org.redisson.config.ConstantDelay(java.time.Duration.ofMillis(220));

  public RedissonClient build() {
    return build(null);
  }

  /**
   * Builds the service's client: shut down by the lifecycle at stop, its {@code redis} health check
   * registered, and its {@code maxmemory-policy} read now and then every minute, logged, shown in
   * that check's details and as {@code refresher.redis.eviction-policy-safe}.
   *
   * @param connections told of every (re)connection and disconnection
   * @param reachability what the health check reports while the epoch guard finds Redis away
   * @param clock this machine's: when the eviction policy is read again
   */
  public RedissonClient build(
      Environment environment, ConnectionListener connections, RedisReachability reachability, InstantSource clock) {
    RedissonClient redisson = build(connections);
    environment.lifecycle().manage(new AutoCloseableManager(redisson::shutdown));
    LOG.info("Redis at {}", redactedUrl());
    RedisEvictionPolicy evictionPolicy = RedisEvictionPolicy.of(redisson, mode == Mode.CLUSTER, clock);
    evictionPolicy.check(); // logged now, WARN for a policy that may evict the service's keys; never throws
    environment.healthChecks().register("redis", new RedisHealthCheck(redisson, redactedUrl(), evictionPolicy, reachability));
    environment.metrics().register(
        "refresher.redis.eviction-policy-safe", (Gauge<Integer>) () -> evictionPolicy.safety().gauge());
    return redisson;
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
    // The service stores no Redisson objects inside values: without this, every argument of every
    // command is checked for one (the lock and write scripts carry a dozen arguments per key).
    config.setReferenceEnabled(false);
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
      applyTls(cluster);
      if (credentials.password() != null) {
        cluster.setPassword(credentials.password());
        if (credentials.user() != null) {
          cluster.setUsername(credentials.user());
        }
      }
      return Redisson.create(config);
    }
    if (mode == Mode.SENTINEL) {
      return Redisson.create(sentinelConfig(config, nodes.get(0)));
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
    applyTls(server);
    return Redisson.create(config);
  }

  /**
   * Sentinel mode: Redisson asks the Sentinels for the primary, subscribes to their {@code
   * +switch-master} announcements and also asks them again every second ({@code scanInterval}), so
   * it follows a failover within about a second of the Sentinels' decision. Replicas get no
   * connections of their own: every read and write goes to the primary.
   */
  Config sentinelConfig(Config config, ParsedUrl data) {
    SentinelServersConfig sentinel = config.useSentinelServers();
    sentinel
        .setMasterName(masterName)
        .setDatabase(data.database())
        .setReadMode(ReadMode.MASTER)
        .setScanInterval(1_000)
        // Sentinels that drop off the list (a restarted one, before it is rediscovered) must not
        // stop the service from starting or following a failover.
        .setCheckSentinelsList(false)
        .setTimeout((int) timeout.toMilliseconds())
        .setConnectTimeout((int) connectTimeout.toMilliseconds())
        .setMasterConnectionPoolSize(connectionPoolSize)
        .setMasterConnectionMinimumIdleSize(Math.min(8, connectionPoolSize))
        .setSlaveConnectionPoolSize(1)
        .setSlaveConnectionMinimumIdleSize(1)
        .setRetryAttempts(1)
        .setReconnectionDelay(RECONNECTION_DELAY)
        .setRetryDelay(RETRY_DELAY)
        .setPingConnectionInterval(5_000);
    sentinelAddresses().forEach(sentinel::addSentinelAddress);
    if (data.password() != null) {
      sentinel.setPassword(data.password());
      if (data.user() != null) {
        sentinel.setUsername(data.user());
      }
    }
    if (sentinelPassword != null) {
      sentinel.setSentinelPassword(sentinelPassword);
      if (sentinelUsername != null) {
        sentinel.setSentinelUsername(sentinelUsername);
      }
    }
    applyTls(sentinel);
    return config;
  }

  /**
   * The trust and verification settings of {@code rediss://} connections (Redisson ignores them
   * for {@code redis://}). Fails with a message naming the setting and the file when a trust file
   * cannot be read.
   */
  void applyTls(BaseConfig<?> server) {
    server.setSslVerificationMode(
        tlsVerification == TlsVerification.CA_ONLY ? SslVerificationMode.CA_ONLY : SslVerificationMode.STRICT);
    if (caCertificate != null) {
      server.setSslTrustManagerFactory(PemTrust.trustManagers(Path.of(caCertificate), "redis.caCertificate"));
    } else if (truststore != null) {
      try {
        server.setSslTruststore(Path.of(truststore).toUri().toURL());
      } catch (MalformedURLException e) {
        throw new IllegalStateException("redis.truststore " + truststore + " is not a file path", e);
      }
      if (truststorePassword != null) {
        server.setSslTruststorePassword(truststorePassword);
      }
    }
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
    return "RedisFactory{url=" + redactedUrl()
        + (caCertificate != null ? ", caCertificate=" + caCertificate : "")
        + (truststore != null ? ", truststore=" + truststore : "")
        + ", tlsVerification=" + tlsVerification
        + (sentinelPassword != null ? ", sentinelPassword=<set>" : "") + "}";
  }
}
