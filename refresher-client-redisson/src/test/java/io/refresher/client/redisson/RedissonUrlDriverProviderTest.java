package io.refresher.client.redisson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.redisson.config.Config;

/** What a URL stands for: a cluster is said by its scheme or by several seeds, never guessed. */
class RedissonUrlDriverProviderTest {

  @Test
  void oneEndpoint_isASingleServer_unlessTheSchemeSaysCluster() {
    Config single = RedissonUrlDriverProvider.configFor("redis://cache:6379");
    assertThat(single.isClusterConfig()).isFalse();
    assertThat(single.useSingleServer().getAddress()).isEqualTo("redis://cache:6379");

    Config endpoint = RedissonUrlDriverProvider.configFor("redis-cluster://clustercfg.cache:6379");
    assertThat(endpoint.isClusterConfig()).isTrue();
    assertThat(endpoint.useClusterServers().getNodeAddresses()).containsExactly("redis://clustercfg.cache:6379");

    Config tls = RedissonUrlDriverProvider.configFor("rediss-cluster://a:6379, b:6379");
    assertThat(tls.useClusterServers().getNodeAddresses()).containsExactly("rediss://a:6379", "rediss://b:6379");
  }

  @Test
  void severalSeeds_areACluster() {
    Config seeds = RedissonUrlDriverProvider.configFor("redis://a:6379,redis://b:6379");
    assertThat(seeds.isClusterConfig()).isTrue();
    assertThat(seeds.useClusterServers().getNodeAddresses()).containsExactly("redis://a:6379", "redis://b:6379");
  }

  @Test
  void aClusterUrlWithoutHosts_isRefused() {
    assertThatThrownBy(() -> RedissonUrlDriverProvider.configFor("redis-cluster://"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("host:port");
  }
}
