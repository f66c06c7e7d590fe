package io.refresher.bench;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.ServerLifecycleListener;
import io.refresher.RefresherApplication;
import io.refresher.wiring.ServiceWiring;
import io.refresher.config.RefresherConfiguration;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The real service in this JVM ({@code RefresherApplication.run("server", bench.yml)}), on the
 * application port it was given (bench.yml asks for any free one), until {@link #close()}.
 * A service that fails to start throws instead of ending the JVM.
 */
final class BenchService implements AutoCloseable {

  private final App app;
  private final long startedNanos;
  private final long readyNanos;

  private BenchService(App app, long startedNanos, long readyNanos) {
    this.app = app;
    this.startedNanos = startedNanos;
    this.readyNanos = readyNanos;
  }

  /**
   * Starts the service and waits until it is ready: the admin port's {@code /healthcheck} (every
   * health check: Redis, PostgreSQL, the scheduler, deadlocks) answers 200. bench.yml declares no
   * {@code /health-check} on the application port.
   */
  static BenchService start(BenchConfig config, Duration readyWithin) throws Exception {
    return start(config.write(), readyWithin);
  }

  /** As {@link #start(BenchConfig, Duration)}, with a configuration file of the caller's (bench.yml rendered, and more). */
  static BenchService start(java.nio.file.Path configFile, Duration readyWithin) throws Exception {
    String file = configFile.toString();
    App app = new App();
    long started = System.nanoTime();
    try {
      app.run("server", file);
      if (app.port <= 0 || app.adminPort <= 0) {
        throw new IllegalStateException("the service started without an application or admin port");
      }
      awaitReady(app.adminPort, readyWithin);
    } catch (Exception | Error e) {
      try {
        app.stopServer();
      } catch (Exception stopping) {
        e.addSuppressed(stopping);
      }
      throw e;
    }
    return new BenchService(app, started, System.nanoTime());
  }

  /** From {@code run("server", ...)} being called to the first healthy answer. */
  Duration startUp() {
    return Duration.ofNanos(readyNanos - startedNanos);
  }

  int port() {
    return app.port;
  }

  URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + app.port + pathAndQuery);
  }

  ServiceWiring.Parts parts() {
    return app.parts();
  }

  MetricRegistry metrics() {
    return app.metrics();
  }

  /** Refreshes the service has done since it started. */
  long refreshed() {
    return app.metrics().meter("refresher.refresh.refreshed").getCount();
  }

  long failed() {
    return app.metrics().meter("refresher.refresh.failed").getCount();
  }

  @Override
  public void close() throws Exception {
    app.stopServer();
  }

  private static void awaitReady(int adminPort, Duration within) throws InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest ready =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/healthcheck"))
            .timeout(Duration.ofSeconds(5))
            .build();
    long deadline = System.nanoTime() + within.toNanos();
    int last = -1;
    while (System.nanoTime() < deadline) {
      try {
        last = http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode();
        if (last == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      TimeUnit.MILLISECONDS.sleep(10);
    }
    throw new IllegalStateException("the service was not ready within " + within + " (last answer " + last + ")");
  }

  /** The application, telling its port, and failing by exception rather than System.exit. */
  private static final class App extends RefresherApplication {
    private volatile int port;
    private volatile int adminPort;

    @Override
    public void run(RefresherConfiguration config, Environment environment) throws Exception {
      super.run(config, environment);
      environment
          .lifecycle()
          .addServerLifecycleListener(
              new ServerLifecycleListener() {
                @Override
                public void serverStarted(org.eclipse.jetty.server.Server server) {
                  port = getLocalPort(server);
                  adminPort = getAdminPort(server);
                }
              });
    }

    @Override
    protected void onFatalError(Throwable t) {
      throw new IllegalStateException("the service failed to start: " + t, t);
    }
  }
}
