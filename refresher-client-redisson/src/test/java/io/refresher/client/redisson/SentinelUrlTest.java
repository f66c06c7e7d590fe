package io.refresher.client.redisson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;

class SentinelUrlTest {

  @Test
  void parse_fullUrl_sentinelsMasterDatabaseAndCredentials() {
    SentinelUrl url = SentinelUrl.parse("redis-sentinel://app:p%40ss+1@s-a:26379, s-b:26380/main/2");

    assertThat(url.tls()).isFalse();
    assertThat(url.sentinels()).containsExactly("redis://s-a:26379", "redis://s-b:26380");
    assertThat(url.masterName()).isEqualTo("main");
    assertThat(url.database()).isEqualTo(2);
    assertThat(url.user()).isEqualTo("app");
    assertThat(url.password()).isEqualTo("p@ss+1");
    assertThat(url.toString()).doesNotContain("p@ss");
  }

  @Test
  void parse_tlsWithoutCredentialsOrDatabase_defaults() {
    SentinelUrl url = SentinelUrl.parse("rediss-sentinel://s-a:26379/main");

    assertThat(url.sentinels()).containsExactly("rediss://s-a:26379");
    assertThat(url.database()).isZero();
    assertThat(url.password()).isNull();
  }

  @Test
  void parse_malformed_explains() {
    assertThatThrownBy(() -> SentinelUrl.parse("redis-sentinel://s-a:26379")).hasMessageContaining("master name");
    assertThatThrownBy(() -> SentinelUrl.parse("redis-sentinel://s-a/main")).hasMessageContaining("host:port");
    assertThatThrownBy(() -> SentinelUrl.parse("redis-sentinel://s-a:1/main/x")).hasMessageContaining("database");
    assertThatThrownBy(() -> SentinelUrl.parse("redis-sentinel://:secret@s-a/main"))
        .hasMessageNotContaining("secret");
  }

  @Test
  void applyTo_readsAndWritesOnThePrimary() {
    var servers =
        SentinelUrl.parse("redis-sentinel://:pw@s-a:26379,s-b:26379/main/1").applyTo(new Config()).useSentinelServers();

    assertThat(servers.getMasterName()).isEqualTo("main");
    assertThat(servers.getSentinelAddresses()).containsExactly("redis://s-a:26379", "redis://s-b:26379");
    assertThat(servers.getReadMode()).isEqualTo(ReadMode.MASTER);
    assertThat(servers.getDatabase()).isEqualTo(1);
    assertThat(servers.getPassword()).isEqualTo("pw");
  }

  @Test
  void isSentinel_byScheme() {
    assertThat(SentinelUrl.isSentinel(" REDIS-SENTINEL://a:1/m")).isTrue();
    assertThat(SentinelUrl.isSentinel("redis://a:1,redis://b:2")).isFalse();
  }
}
