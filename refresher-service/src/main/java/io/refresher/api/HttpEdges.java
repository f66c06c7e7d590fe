package io.refresher.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.jersey.setup.JerseyEnvironment;
import io.dropwizard.jetty.MutableServletContextHandler;
import io.dropwizard.jetty.setup.ServletEnvironment;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;
import jakarta.servlet.DispatcherType;
import java.util.EnumSet;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;

/**
 * What the HTTP server does with requests before (or instead of) the API: errors Jetty raises
 * itself are rendered in the API's JSON error shape, request bodies are capped, and only {@code
 * application/json} bodies are read; every request carries a request id ({@link RequestIds}). See
 * {@link JsonErrorHandlers}, {@link RequestBodyLimit} and {@link StrictJsonContentType}.
 */
public final class HttpEdges {

  private HttpEdges() {}

  /**
   * @param applicationContext the application connector's servlet context
   * @param lifecycle where the server is handed over just before it starts
   */
  public static void install(
      MutableServletContextHandler applicationContext,
      LifecycleEnvironment lifecycle,
      ServletEnvironment servlets,
      JerseyEnvironment jersey,
      ObjectMapper json,
      long maxBodyBytes) {
    applicationContext.setErrorHandler(JsonErrorHandlers.forServletContext(json));
    // Dropwizard builds the Server after run(); it is handed over here just before it starts.
    lifecycle.addEventListener(new LifeCycle.Listener() {
      @Override
      public void lifeCycleStarting(LifeCycle event) {
        if (event instanceof Server server) {
          server.setErrorHandler(JsonErrorHandlers.forServer(json));
        }
      }
    });
    // First: the request id is in the logging context of everything the request causes, errors of
    // the filters after it included.
    servlets
        .addFilter("request-id", new RequestIds())
        .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), false, "/*");
    servlets
        .addFilter("request-body-limit", new RequestBodyLimit(maxBodyBytes, json))
        .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), false, "/*");
    jersey.register(new StrictJsonContentType());
  }
}
