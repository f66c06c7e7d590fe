package io.refresher.client.redisson;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;
import org.redisson.config.SentinelServersConfig;

/**
 * A Redis behind Sentinel, as the client takes it:
 * {@code redis-sentinel://[user:password@]host:port[,host:port...]/masterName[/database]}
 * ({@code rediss-sentinel://} for TLS, to the Sentinels and the servers alike). The hosts are the
 * Sentinels; the credentials are the primary's and replicas' (Redisson uses them for the Sentinels
 * too unless told otherwise: for separate Sentinel credentials, build the Redisson client yourself
 * and use {@code RefresherClient.builder(RedissonDriver.of(redisson))}).
 *
 * <p>Reads and writes go to the primary: the write rule compares with what the service wrote last,
 * which a replica may not have yet.
 */
record SentinelUrl(boolean tls, List<String> sentinels, String masterName, int database, String user, String password) {

  static boolean isSentinel(String url) {
    String lower = url.trim().toLowerCase(Locale.ROOT);
    return lower.startsWith("redis-sentinel://") || lower.startsWith("rediss-sentinel://");
  }

  /** @throws IllegalArgumentException naming what is wrong (never the password) */
  static SentinelUrl parse(String url) {
    String text = url.trim();
    int schemeEnd = text.indexOf("://");
    String scheme = text.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
    boolean tls = scheme.equals("rediss-sentinel");
    String rest = text.substring(schemeEnd + 3);
    String user = null;
    String password = null;
    int at = rest.lastIndexOf('@');
    if (at >= 0) {
      String userInfo = rest.substring(0, at);
      rest = rest.substring(at + 1);
      int colon = userInfo.indexOf(':');
      if (colon >= 0) {
        user = colon == 0 ? null : decode(userInfo.substring(0, colon));
        password = decode(userInfo.substring(colon + 1));
      } else {
        password = decode(userInfo);
      }
    }
    int slash = rest.indexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException("a Sentinel URL needs the master name: " + scheme + "://host:port,host:port/masterName");
    }
    String[] path = rest.substring(slash + 1).split("/");
    String masterName = path[0];
    if (masterName.isBlank() || path.length > 2) {
      throw new IllegalArgumentException("a Sentinel URL's path is /masterName or /masterName/database");
    }
    int database;
    try {
      database = path.length == 2 ? Integer.parseInt(path[1]) : 0;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("the database of a Sentinel URL is a number, was '" + path[1] + "'", e);
    }
    List<String> sentinels = new ArrayList<>();
    for (String address : rest.substring(0, slash).split(",")) {
      String trimmed = address.trim();
      int colon = trimmed.lastIndexOf(':');
      if (colon <= 0 || !trimmed.substring(colon + 1).matches("\\d{1,5}")) {
        throw new IllegalArgumentException("a Sentinel address is host:port, was '" + trimmed + "'");
      }
      sentinels.add((tls ? "rediss://" : "redis://") + trimmed);
    }
    return new SentinelUrl(tls, List.copyOf(sentinels), decode(masterName), database, user, password);
  }

  /** Configures {@code config} for this Sentinel group; returns it. */
  Config applyTo(Config config) {
    SentinelServersConfig servers =
        config
            .useSentinelServers()
            .setMasterName(masterName)
            .setDatabase(database)
            .setReadMode(ReadMode.MASTER)
            .setCheckSentinelsList(false);
    sentinels.forEach(servers::addSentinelAddress);
    if (password != null) {
      servers.setPassword(password);
      if (user != null) {
        servers.setUsername(user);
      }
    }
    return config;
  }

  /** Percent-decoding only (RFC 3986): a {@code +} in a password stays a plus. */
  private static String decode(String part) {
    return URLDecoder.decode(part.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return (tls ? "rediss-sentinel://" : "redis-sentinel://") + String.join(",", sentinels) + "/" + masterName + "/" + database;
  }
}
