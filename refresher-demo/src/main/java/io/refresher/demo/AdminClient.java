package io.refresher.demo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** The admin API, as an operator's script would call it. */
final class AdminClient {
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final int port;
  private final String token;

  AdminClient(int port, String token) {
    this.port = port;
    this.token = token;
  }

  void awaitReady(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        HttpResponse<Void> response =
            http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health-check?type=ready")).build(),
                HttpResponse.BodyHandlers.discarding());
        if (response.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      TimeUnit.MILLISECONDS.sleep(200);
    }
    throw new IllegalStateException("the service did not become ready within " + timeout);
  }

  /** PUT of a JSON body to an admin path (already percent-encoded). */
  void put(String path, String json) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 201 && response.statusCode() != 200) {
      throw new IllegalStateException("PUT " + path + " failed: " + response.statusCode() + " " + response.body());
    }
  }

  /** GET of an admin path: the JSON body of a 200 answer. */
  String get(String path, Duration timeout) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + token)
                .timeout(timeout)
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("GET " + path + " answered " + response.statusCode() + " " + response.body());
    }
    return response.body();
  }
}
