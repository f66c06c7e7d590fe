package io.refresher.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.refresher.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.config.Config;
import org.redisson.config.SingleServerConfig;
import org.redisson.config.SslVerificationMode;

class RedisFactoryTest {

  @TempDir static Path directory;
  private static TestCertificates certificates;

  @BeforeAll
  static void makeCertificates() {
    certificates = TestCertificates.create(directory.resolve("certs"), "Redis Factory Test CA");
  }

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

  @Test
  void applyTls_caCertificate_trustManagersFromThePemAndStrictVerification() {
    RedisFactory factory = factory("rediss://cache:6380", RedisFactory.Mode.SINGLE);
    factory.setCaCertificate(certificates.caCertificate().toString());
    SingleServerConfig server = new Config().useSingleServer();

    factory.applyTls(server);

    assertThat(server.getSslTrustManagerFactory()).isNotNull();
    assertThat(server.getSslTrustManagerFactory().getTrustManagers()).isNotEmpty();
    assertThat(server.getSslTruststore()).isNull();
    assertThat(server.getSslVerificationMode()).isEqualTo(SslVerificationMode.STRICT);
  }

  @Test
  void applyTls_truststore_urlPasswordAndCaOnlyVerification() throws Exception {
    RedisFactory factory = factory("rediss://cache:6380", RedisFactory.Mode.SINGLE);
    factory.setTruststore(certificates.caTruststore().toString());
    factory.setTruststorePassword("store-secret");
    factory.setTlsVerification(RedisFactory.TlsVerification.CA_ONLY);
    SingleServerConfig server = new Config().useSingleServer();

    factory.applyTls(server);

    assertThat(server.getSslTruststore()).isEqualTo(certificates.caTruststore().toUri().toURL());
    assertThat(server.getSslTruststorePassword()).isEqualTo("store-secret");
    assertThat(server.getSslTrustManagerFactory()).isNull();
    assertThat(server.getSslVerificationMode()).isEqualTo(SslVerificationMode.CA_ONLY);
    assertThat(factory.toString()).doesNotContain("store-secret");
  }

  @Test
  void applyTls_clusterConfig_getsTheSameSettings() {
    RedisFactory factory = factory("rediss://a:6379,rediss://b:6379", RedisFactory.Mode.CLUSTER);
    factory.setCaCertificate(certificates.caCertificate().toString());
    var cluster = new Config().useClusterServers();

    factory.applyTls(cluster);

    assertThat(cluster.getSslTrustManagerFactory()).isNotNull();
    assertThat(cluster.getSslVerificationMode()).isEqualTo(SslVerificationMode.STRICT);
  }

  @Test
  void applyTls_noTrustSettings_jvmTrustStoreAndStrictVerification() {
    SingleServerConfig server = new Config().useSingleServer();

    factory("rediss://cache:6380", RedisFactory.Mode.SINGLE).applyTls(server);

    assertThat(server.getSslTrustManagerFactory()).isNull();
    assertThat(server.getSslTruststore()).isNull();
    assertThat(server.getSslVerificationMode()).isEqualTo(SslVerificationMode.STRICT);
  }

  @Test
  void applyTls_fileWithoutCertificates_failsNamingTheSettingAndFile() throws Exception {
    Path garbage = Files.writeString(directory.resolve("not-a-cert.pem"), "hello");
    RedisFactory factory = factory("rediss://cache:6380", RedisFactory.Mode.SINGLE);
    factory.setCaCertificate(garbage.toString());

    assertThatThrownBy(() -> factory.applyTls(new Config().useSingleServer()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("redis.caCertificate")
        .hasMessageContaining(garbage.toString());
  }

  @Test
  void validation_trustSettings_needRedissOneSourceAndReadableFiles() {
    RedisFactory plain = factory("redis://cache:6379", RedisFactory.Mode.SINGLE);
    plain.setCaCertificate(certificates.caCertificate().toString());
    assertThat(plain.isTrustOnlyWithTls()).isFalse();

    RedisFactory both = factory("rediss://cache:6380", RedisFactory.Mode.SINGLE);
    both.setCaCertificate(certificates.caCertificate().toString());
    both.setTruststore(certificates.caTruststore().toString());
    assertThat(both.isOneTrustSource()).isFalse();

    RedisFactory missing = factory("rediss://cache:6380", RedisFactory.Mode.SINGLE);
    missing.setCaCertificate(directory.resolve("no-such.pem").toString());
    assertThat(missing.isCaCertificateReadable()).isFalse();
    assertThat(missing.isTrustOnlyWithTls()).isTrue();

    RedisFactory blank = factory("redis://cache:6379", RedisFactory.Mode.SINGLE);
    blank.setCaCertificate("");
    blank.setTruststore(" ");
    assertThat(blank.getCaCertificate()).isNull();
    assertThat(blank.isTrustOnlyWithTls()).isTrue();
  }

  @Test
  void tlsVerificationFromJson_kebabOrSnakeCase_parses() {
    assertThat(RedisFactory.TlsVerification.fromJson("ca-only")).isEqualTo(RedisFactory.TlsVerification.CA_ONLY);
    assertThat(RedisFactory.TlsVerification.fromJson(" STRICT ")).isEqualTo(RedisFactory.TlsVerification.STRICT);
  }

  private static RedisFactory sentinel(String url, String sentinels) {
    RedisFactory factory = factory(url, RedisFactory.Mode.SENTINEL);
    factory.setMasterName("main");
    factory.setSentinels(java.util.List.of(sentinels));
    return factory;
  }

  @Test
  void sentinelConfig_fullMapping_primaryOnlyWithBothCredentials() {
    RedisFactory factory = sentinel("redis://app:p%40ss@ignored:1/3", "s-a:26379, s-b:26380,s-c:26381");
    factory.setSentinelUsername("watcher");
    factory.setSentinelPassword("s3ntinel");

    var config = factory.sentinelConfig(new Config(), RedisFactory.parse(factory.getUrl())).useSentinelServers();

    assertThat(factory.getSentinels()).containsExactly("s-a:26379", "s-b:26380", "s-c:26381");
    assertThat(config.getSentinelAddresses())
        .containsExactly("redis://s-a:26379", "redis://s-b:26380", "redis://s-c:26381");
    assertThat(config.getMasterName()).isEqualTo("main");
    assertThat(config.getDatabase()).isEqualTo(3);
    assertThat(config.getReadMode()).isEqualTo(org.redisson.config.ReadMode.MASTER);
    assertThat(config.getUsername()).isEqualTo("app");
    assertThat(config.getPassword()).isEqualTo("p@ss");
    assertThat(config.getSentinelUsername()).isEqualTo("watcher");
    assertThat(config.getSentinelPassword()).isEqualTo("s3ntinel");
    assertThat(config.getRetryAttempts()).isEqualTo(1);
    assertThat(factory.redactedUrl())
        .isEqualTo("sentinel master 'main' via s-a:26379,s-b:26380,s-c:26381 (database 3)")
        .doesNotContain("p@ss");
    assertThat(factory.toString()).doesNotContain("s3ntinel").doesNotContain("p@ss");
  }

  @Test
  void sentinelConfig_rediss_sentinelsReachedWithTlsToo() {
    RedisFactory factory = sentinel("rediss://:pw@ignored:1", "s-a:26379");

    var config = factory.sentinelConfig(new Config(), RedisFactory.parse(factory.getUrl())).useSentinelServers();

    assertThat(config.getSentinelAddresses()).containsExactly("rediss://s-a:26379");
  }

  @Test
  void validation_sentinel_needsMasterNameAndHostPortSentinels() {
    RedisFactory valid = sentinel("redis://x:6379", "s-a:26379");
    assertThat(valid.isMasterNameSetForSentinel()).isTrue();
    assertThat(valid.isSentinelsSetForSentinel()).isTrue();
    assertThat(valid.isSentinelsValid()).isTrue();
    assertThat(valid.isSentinelSettingOnlyForSentinel()).isTrue();

    RedisFactory noName = sentinel("redis://x:6379", "s-a:26379");
    noName.setMasterName(" ");
    assertThat(noName.isMasterNameSetForSentinel()).isFalse();

    RedisFactory noSentinels = sentinel("redis://x:6379", "");
    assertThat(noSentinels.isSentinelsSetForSentinel()).isFalse();

    for (String bad : new String[] {"s-a", "s-a:", "s-a:0", "s-a:70000", "redis://s-a:26379", "s-a:port"}) {
      assertThat(sentinel("redis://x:6379", bad).isSentinelsValid()).as(bad).isFalse();
    }

    RedisFactory userOnly = sentinel("redis://x:6379", "s-a:26379");
    userOnly.setSentinelUsername("watcher");
    assertThat(userOnly.isSentinelUserWithPassword()).isFalse();
  }

  @Test
  void validation_sentinelSettingsWithoutSentinelMode_refused() {
    RedisFactory single = factory("redis://x:6379", RedisFactory.Mode.SINGLE);
    assertThat(single.isSentinelSettingOnlyForSentinel()).isTrue();
    single.setMasterName("main");
    assertThat(single.isSentinelSettingOnlyForSentinel()).isFalse();
  }

  @Test
  void modeFromJson_sentinel_parses() {
    assertThat(RedisFactory.Mode.fromJson(" Sentinel ")).isEqualTo(RedisFactory.Mode.SENTINEL);
  }

  @Test
  void sentinelsFromJson_oneCommaSeparatedStringOrAList_sameAddresses() throws Exception {
    var mapper = io.dropwizard.jackson.Jackson.newObjectMapper();
    RedisFactory fromString =
        mapper.readValue("{\"mode\":\"sentinel\",\"sentinels\":\"s-a:1, s-b:2\"}", RedisFactory.class);
    RedisFactory fromList =
        mapper.readValue("{\"mode\":\"sentinel\",\"sentinels\":[\"s-a:1\",\"s-b:2\"]}", RedisFactory.class);

    assertThat(fromString.getSentinels()).containsExactly("s-a:1", "s-b:2");
    assertThat(fromList.getSentinels()).containsExactly("s-a:1", "s-b:2");
  }
}
