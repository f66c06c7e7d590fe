package io.refresher.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RedisFactoryTest {

  private static RedisFactory factory(String url, RedisFactory.Mode mode) {
    RedisFactory factory = new RedisFactory();
    factory.setUrl(url);
    factory.setMode(mode);
    return factory;
  }

  @Test
  void isUrlValid_clusterSeedList_isValid() {
    assertThat(factory("redis://a:6379, redis://b:6380,redis://c:6381", RedisFactory.Mode.CLUSTER).isUrlValid())
        .isTrue();
  }

  @Test
  void isUrlValid_clusterWithDatabaseOtherThanZero_isInvalid() {
    assertThat(factory("redis://a:6379/2,redis://b:6380", RedisFactory.Mode.CLUSTER).isUrlValid()).isFalse();
  }

  @Test
  void isUrlValid_singleWithSeveralUrls_isInvalid() {
    assertThat(factory("redis://a:6379,redis://b:6380", RedisFactory.Mode.SINGLE).isUrlValid()).isFalse();
  }

  @Test
  void redactedUrl_passwords_neverShown() {
    assertThat(factory("redis://user:s3cret@a:6379/1", RedisFactory.Mode.SINGLE).redactedUrl())
        .isEqualTo("redis://a:6379/1")
        .doesNotContain("s3cret");
    assertThat(factory("redis://:s3cret@a:6379,redis://b:6380", RedisFactory.Mode.CLUSTER).redactedUrl())
        .isEqualTo("cluster redis://a:6379,redis://b:6380");
  }

  @Test
  void modeFromJson_anyCase_parses() {
    assertThat(RedisFactory.Mode.fromJson(" Cluster ")).isEqualTo(RedisFactory.Mode.CLUSTER);
  }
}
