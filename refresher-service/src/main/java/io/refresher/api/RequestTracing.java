package io.refresher.api;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import org.glassfish.jersey.server.ExtendedUriInfo;
import org.slf4j.MDC;

/**
 * A server span per admin API request ({@code PUT /v1/keys/{key}}, the route, not the key), a
 * child of the caller's {@code traceparent} when it sends one, and current while the request runs:
 * a manual refresh's spans are its children. The request id is an attribute of it.
 */
@Priority(Priorities.USER)
public final class RequestTracing implements ContainerRequestFilter, ContainerResponseFilter {

  private static final String SPAN = RequestTracing.class.getName() + ".span";
  private static final String SCOPE = RequestTracing.class.getName() + ".scope";

  private static final TextMapGetter<ContainerRequestContext> HEADERS =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(ContainerRequestContext request) {
          return request.getHeaders().keySet();
        }

        @Override
        public String get(ContainerRequestContext request, String name) {
          return request == null ? null : request.getHeaderString(name);
        }
      };

  private final OpenTelemetry telemetry;
  private final Tracer tracer;

  public RequestTracing(OpenTelemetry telemetry) {
    this.telemetry = telemetry;
    this.tracer = telemetry.getTracer("io.refresher");
  }

  @Override
  public void filter(ContainerRequestContext request) {
    Context parent = telemetry.getPropagators().getTextMapPropagator().extract(Context.current(), request, HEADERS);
    String route = route(request.getUriInfo());
    Span span =
        tracer.spanBuilder(request.getMethod() + " " + route)
            .setParent(parent)
            .setSpanKind(SpanKind.SERVER)
            .setAttribute("http.request.method", request.getMethod())
            .setAttribute("http.route", route)
            .startSpan();
    String requestId = MDC.get(RequestIds.MDC_KEY);
    if (requestId != null) {
      span.setAttribute("refresher.request_id", requestId);
    }
    request.setProperty(SPAN, span);
    request.setProperty(SCOPE, span.makeCurrent());
  }

  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    if (request.getProperty(SCOPE) instanceof Scope scope) {
      scope.close();
    }
    if (request.getProperty(SPAN) instanceof Span span) {
      span.setAttribute("http.response.status_code", response.getStatus());
      if (response.getStatus() >= 500) {
        span.setStatus(StatusCode.ERROR);
      }
      span.end();
    }
  }

  /** The matched resource path template ({@code /v1/keys/{key}}), so that spans group by route. */
  private static String route(UriInfo uri) {
    if (uri instanceof ExtendedUriInfo extended) {
      List<org.glassfish.jersey.uri.UriTemplate> templates = extended.getMatchedTemplates();
      StringBuilder route = new StringBuilder();
      for (int i = templates.size() - 1; i >= 0; i--) {
        String part = templates.get(i).getTemplate();
        if (!part.startsWith("/") && route.length() > 0 && route.charAt(route.length() - 1) != '/') {
          route.append('/');
        }
        route.append(part);
      }
      if (route.length() > 0) {
        return route.toString().replaceAll("\\{(\\w+)(:[^}]*)?}", "{$1}");
      }
    }
    return uri.getPath();
  }
}
