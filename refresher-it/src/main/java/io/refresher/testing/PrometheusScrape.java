package io.refresher.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The service's {@code /metrics/prometheus} as a test reads it: the text, and a sample's sum. */
public final class PrometheusScrape {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private PrometheusScrape() {}

  /** The exposition served on {@code adminPort}; fails unless it answers 200. */
  public static String of(int adminPort) {
    try {
      HttpResponse<String> response =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/metrics/prometheus")).build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new AssertionError("/metrics/prometheus answered " + response.statusCode() + ": " + response.body());
      }
      return response.body();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * The sum of a sample's values over its label sets, over those holding {@code label} (such as
   * {@code source="catalog"}) when it is not null; 0 when there is none.
   */
  public static double sum(String exposition, String sampleName, String label) {
    Pattern line = Pattern.compile("^" + Pattern.quote(sampleName) + "(\\{[^}]*\\})? (\\S+)$", Pattern.MULTILINE);
    Matcher matcher = line.matcher(exposition);
    double sum = 0;
    while (matcher.find()) {
      String labels = matcher.group(1) == null ? "" : matcher.group(1);
      if (label == null || labels.contains(label)) {
        sum += Double.parseDouble(matcher.group(2));
      }
    }
    return sum;
  }
}
