package io.refresher.config;

import ch.qos.logback.access.jetty.RequestLogImpl;
import ch.qos.logback.core.status.Status;
import io.dropwizard.request.logging.RequestLogFactory;
import org.eclipse.jetty.server.RequestLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request log as configured, whose own status messages go to the service's log instead of the
 * console. Logback-access prints every status it collected while starting straight to standard
 * out ({@code 07:22:26,976 |-INFO in LogbackAccessRequestLog - Found logback-access-jetty12
 * version ?}, and warnings that its versions differ, which Dropwizard 5.0.1's packaging and the
 * shaded jar's single manifest always cause): lines that are neither the log's format nor JSON, so
 * a JSON log pipeline could not read the first lines of every start (ServiceJarIT saw six). Errors
 * are logged as errors; the rest at DEBUG.
 */
public final class QuietRequestLogFactory implements RequestLogFactory<RequestLog> {

  private static final Logger LOG = LoggerFactory.getLogger("io.refresher.requestlog");

  private final RequestLogFactory<?> configured;

  private QuietRequestLogFactory(RequestLogFactory<?> configured) {
    this.configured = configured;
  }

  /** Makes the server's configured request log quiet; before the server is built (in {@code run}). */
  public static void install(io.dropwizard.core.server.ServerFactory server) {
    if (server instanceof io.dropwizard.core.server.AbstractServerFactory factory
        && !(factory.getRequestLogFactory() instanceof QuietRequestLogFactory)) {
      factory.setRequestLogFactory(new QuietRequestLogFactory(factory.getRequestLogFactory()));
    }
  }

  @Override
  public boolean isEnabled() {
    return configured.isEnabled();
  }

  @Override
  public RequestLog build(String name) {
    RequestLog log = configured.build(name);
    if (log instanceof RequestLogImpl access) {
      access.setQuiet(true);
      access.getStatusManager().add(QuietRequestLogFactory::forward);
    }
    return log;
  }

  private static void forward(Status status) {
    if (status.getLevel() == Status.ERROR) {
      LOG.error("request log: {}", status.getMessage(), status.getThrowable());
    } else {
      LOG.debug("request log: {}", status.getMessage());
    }
  }
}
