package io.refresher.wiring;

import io.dropwizard.assets.AssetsBundle;
import io.dropwizard.core.setup.Bootstrap;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The console's static files (docs/operations.md, "The console"): its pages at {@code /console/}
 * on the application port, same origin as the API they call with the operator's token, and the
 * chart library at {@code /console/vendor/uplot/} from its WebJar in the service's jar (no asset
 * from a CDN at run time).
 */
public final class ConsoleAssets {

  private ConsoleAssets() {}

  public static void add(Bootstrap<?> bootstrap) {
    bootstrap.addBundle(new AssetsBundle("/console", "/console", "index.html", "console"));
    bootstrap.addBundle(
        new AssetsBundle(
            "/META-INF/resources/webjars/uplot/" + webJarVersion("uplot") + "/dist", "/console/vendor/uplot", null, "console-uplot"));
  }

  /**
   * The version of the npm WebJar on the class path, from its Maven properties: the pom alone names
   * it, and the files sit under a directory of that name.
   */
  static String webJarVersion(String artifact) {
    String path = "/META-INF/maven/org.webjars.npm/" + artifact + "/pom.properties";
    try (InputStream in = ConsoleAssets.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("the console needs the WebJar org.webjars.npm:" + artifact + " on the class path (" + path + " missing)");
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
