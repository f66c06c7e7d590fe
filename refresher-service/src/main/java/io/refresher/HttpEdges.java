package io.refresher;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.setup.Environment;
import io.refresher.api.JsonErrorHandlers;
import io.refresher.api.RequestBodyLimit;
import io.refresher.api.StrictJsonContentType;
import jakarta.servlet.DispatcherType;
import java.util.EnumSet;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;

/**
 * What the HTTP server does with requests before (or instead of) the API: errors Jetty raises
 * itself are rendered in the API's JSON error shape, request bodies are capped, and only {@code
 * application/json} bodies are read. See {@link JsonErrorHandlers}, {@link RequestBodyLimit} and
 * {@link StrictJsonContentType}.
 */
final class HttpEdges {

  private HttpEdges() {}

  static void install(Environment environment, long maxBodyBytes) {
    ObjectMapper json = environment.getObjectMapper();
    environment.getApplicationContext().setErrorHandler(JsonErrorHandlers.forServletContext(json));
    // Dropwizard builds the Server after run(); it is handed over here just before it starts.
    environment.lifecycle().addEventListener(new LifeCycle.Listener() {
      @Override
      public void lifeCycleStarting(LifeCycle event) {
        if (event instanceof Server server) {
          server.setErrorHandler(JsonErrorHandlers.forServer(json));
        }
      }
    });
    environment
        .servlets()
        .addFilter("request-body-limit", new RequestBodyLimit(maxBodyBytes, json))
        .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), false, "/*");
    environment.jersey().register(new StrictJsonContentType());
  }
}
