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
  void parse_passwordWithPlus_keepsThePlus() {
    // A password is percent-encoded in a URL, not form-encoded: '+' is a plus, never a space.
    RedisFactory.ParsedUrl parsed = RedisFactory.parse("redis://:pa+ss+word@a:6379");

    assertThat(parsed.password()).isEqualTo("pa+ss+word");
  }

  @Test
  void parse_percentEncodedUserAndPassword_decoded() {
    RedisFactory.ParsedUrl parsed = RedisFactory.parse("redis://app%2Buser:p%40ss%3Aw%2Bord%25@a:6379/2");

    assertThat(parsed.user()).isEqualTo("app+user");
    assertThat(parsed.password()).isEqualTo("p@ss:w+ord%");
    assertThat(parsed.database()).isEqualTo(2);
  }

  @Test
  void isUrlValid_malformedPercentEncodingInPassword_isInvalid() {
    assertThat(factory("redis://:bad%zzpassword@a:6379", RedisFactory.Mode.SINGLE).isUrlValid()).isFalse();
  }

  @Test
  void modeFromJson_anyCase_parses() {
    assertThat(RedisFactory.Mode.fromJson(" Cluster ")).isEqualTo(RedisFactory.Mode.CLUSTER);
  }
}
