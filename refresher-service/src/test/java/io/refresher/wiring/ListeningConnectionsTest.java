package io.refresher.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.util.Duration;
import io.refresher.config.DatabaseFactory;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ListeningConnectionsTest {

  @Test
  void properties_datasourcesOwnPlusCredentialsBoundsAndApplicationName() {
    DatabaseFactory datasource = new DatabaseFactory();
    datasource.setUrl("jdbc:postgresql://db/catalog");
    datasource.setUser("refresher");
    datasource.setPassword("secret");
    datasource.setConnectionTimeout(Duration.milliseconds(2500));
    datasource.setSocketTimeout(Duration.seconds(20));
    datasource.setProperties(Map.of("sslmode", "require", "ApplicationName", "pools", "readOnlyMode", "always"));

    Properties properties = ListeningConnections.properties(datasource);

    assertThat(properties)
        .containsEntry("user", "refresher")
        .containsEntry("password", "secret")
        .containsEntry("sslmode", "require")
        .containsEntry("ApplicationName", "refresher-changes")
        .containsEntry("connectTimeout", "3")
        .containsEntry("socketTimeout", "20")
        .containsEntry("tcpKeepAlive", "true")
        .doesNotContainKey("readOnlyMode");
  }
}
