package io.refresher;

import io.refresher.wiring.ServiceWiring;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.refresher.config.EnvironmentOrFileSubstitutor;
import io.refresher.config.QuietRequestLogFactory;
import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.refresher.cli.DbCommand;
import io.refresher.config.RefresherConfiguration;
import java.time.InstantSource;
import org.eclipse.jetty.server.Server;

/**
 * The composition root: {@link #initialize} adds commands and configuration handling, {@link #run}
 * hands the configuration to {@link ServiceWiring}, which builds and registers the parts.
 */
public class RefresherApplication extends Application<RefresherConfiguration> {

  public static void main(String[] args) throws Exception {
    new RefresherApplication().run(args);
  }

  @Override
  public String getName() {
    return "refresher";
  }

  @Override
  public void initialize(Bootstrap<RefresherConfiguration> bootstrap) {
    // ${NAME} from the environment, or from the file NAME_FILE names (mounted secrets). Strict: a
    // referenced variable without a default that is set neither way stops start-up, naming it.
    bootstrap.setConfigurationSourceProvider(
        new SubstitutingSourceProvider(bootstrap.getConfigurationSourceProvider(), new EnvironmentOrFileSubstitutor()));
    bootstrap.getObjectMapper().disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
    bootstrap.getObjectMapper().disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS);
    // A misspelt field in a request must fail loudly, not register something else.
    bootstrap.getObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    // ... and so must a field given twice: with the default, the last one silently wins.
    bootstrap.getObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    bootstrap.addCommand(new DbCommand());
    io.refresher.wiring.ConsoleAssets.add(bootstrap);
    // The JVM's metrics (jvm.memory.*, jvm.threads.*, ...), which Application.run(String...)
    // registers right after initialize() but DropwizardTestSupport never does: registered here,
    // an in-process service exports the same names as the jar (MetricNamesIT checks the
    // dashboard's against it). A second call is a no-op.
    bootstrap.registerMetrics();
  }

  private volatile ServiceWiring.Parts parts;
  private volatile MetricRegistry metrics;
  private volatile Server server;

  @Override
  public void run(RefresherConfiguration config, Environment environment) throws Exception {
    // Before Dropwizard builds the server: the request log's start-up statuses go to the log.
    QuietRequestLogFactory.install(config.getServerFactory());
    parts = ServiceWiring.wire(config, environment, localClock(), openTelemetry(config, environment), tracing(config));
    metrics = environment.metrics();
    environment.lifecycle().addServerLifecycleListener(started -> server = started);
  }

  /** Where spans go, from {@code tracing:}: a no-op unless an endpoint is set. Tests give an in-memory one. */
  protected io.opentelemetry.api.OpenTelemetry openTelemetry(RefresherConfiguration config, Environment environment) {
    return config.getTracing().build(environment);
  }

  /** Whether to trace: {@code tracing.otlpEndpoint} is set. */
  protected boolean tracing(RefresherConfiguration config) {
    return config.getTracing().enabled();
  }

  /** This machine's clock; the service moves it to Redis's time. Tests give a skewed one. */
  protected InstantSource localClock() {
    return InstantSource.system();
  }

  /** The running service's parts (after {@link #run}); for the demo, the benchmark and tests. */
  public ServiceWiring.Parts parts() {
    return parts;
  }

  /** The running service's metrics (after {@link #run}). */
  public MetricRegistry metrics() {
    return metrics;
  }

  /**
   * Stops a service started in-process with {@code run("server", ...)}: its managed parts stop in
   * reverse order, so embedded Redis and PostgreSQL can be stopped after it.
   */
  public void stopServer() throws Exception {
    if (server != null) {
      server.stop();
    }
  }
}
