package io.refresher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dropwizard.core.setup.Environment;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.refresher.RefresherApplication;
import io.refresher.config.RefresherConfiguration;
import io.refresher.testing.RecordingHttpServer;
import io.refresher.testing.TestApp;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 22, point 4 and acceptance 5 (traces): a manual refresh of an HTTP source's key, asked
 * with a caller's {@code traceparent}, is one trace: the admin request's server span, the
 * refresh's span under it with the source's run and the Redis write inside, and the HTTP source
 * receives a {@code traceparent} of that trace, naming the source's span. The service's spans are
 * collected by the SDK's in-memory exporter (the application's OpenTelemetry is the only thing
 * the test replaces); Redis, PostgreSQL and the HTTP source are real.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class TracingIT {

  static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();

  /** The service, with its spans kept in memory. */
  public static final class TracedApplication extends RefresherApplication {
    @Override
    protected OpenTelemetry openTelemetry(RefresherConfiguration config, Environment environment) {
      return OpenTelemetrySdk.builder()
          .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(SPANS)).build())
          .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
          .build();
    }

    @Override
    protected boolean tracing(RefresherConfiguration config) {
      return true;
    }
  }

  private static final RecordingHttpServer SOURCE =
      RecordingHttpServer.start(request -> RecordingHttpServer.Reply.ok("{\"item\":\"" + request.target() + "\"}"));

  private static final TestApp APP =
      TestApp.withConfig(
          "tracing",
          List.of(),
          """
          httpEndpoints:
            items:
              baseUrl: http://127.0.0.1:%d
          sources:
            item:
              http: { endpoint: items, path: "/items/{id}" }
              params: { id: string }
              timeout: 2s
          """
              .formatted(SOURCE.port()),
          TracedApplication.class);
  static final DropwizardAppExtension<RefresherConfiguration> EXTENSION = APP.extension();

  private static final String CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String CALLER_SPAN = "00f067aa0ba902b7";

  @Test
  void manualRefreshOfAnHttpSourcesKey_oneTraceFromTheCallerToTheSource() {
    try (Response put = APP.putKey("traced:1", "{\"source\":\"item\",\"params\":{\"id\":\"1\"},\"ttl\":\"PT10M\",\"policy\":\"always\"}")) {
      assertThat(put.getStatus()).isEqualTo(201);
    }
    int requestsBefore = SOURCE.requests().size();
    SPANS.reset();

    try (Response refreshed =
        APP.authorized(APP.api("/v1/keys/" + TestApp.pathOf("traced:1") + "/refresh"))
            .header("traceparent", "00-" + CALLER_TRACE + "-" + CALLER_SPAN + "-01")
            .post(Entity.json(""))) {
      assertThat(refreshed.getStatus()).isEqualTo(200);
    }

    await("the request's span ended").atMost(Duration.ofSeconds(10)).until(() -> find(SpanKind.SERVER).isPresent());
    SpanData request = find(SpanKind.SERVER).orElseThrow();
    assertThat(request.getName()).isEqualTo("POST /v1/keys/{key}/refresh");
    assertThat(request.getTraceId()).as("the caller's trace").isEqualTo(CALLER_TRACE);
    assertThat(request.getParentSpanId()).isEqualTo(CALLER_SPAN);

    SpanData refresh = named("refresh");
    assertThat(refresh.getParentSpanId()).as("the refresh is the request's child").isEqualTo(request.getSpanId());
    assertThat(refresh.getAttributes().asMap())
        .containsEntry(io.opentelemetry.api.common.AttributeKey.stringKey("refresher.key"), "traced:1")
        .containsEntry(io.opentelemetry.api.common.AttributeKey.stringKey("refresher.trigger"), "manual")
        .containsEntry(io.opentelemetry.api.common.AttributeKey.stringKey("refresher.outcome"), "refreshed");
    SpanData source = named("source item");
    SpanData write = named("redis write");
    assertThat(source.getParentSpanId()).isEqualTo(refresh.getSpanId());
    assertThat(write.getParentSpanId()).isEqualTo(refresh.getSpanId());
    assertThat(List.of(refresh, source, write)).allSatisfy(span -> assertThat(span.getTraceId()).isEqualTo(CALLER_TRACE));

    List<RecordingHttpServer.Request> received = SOURCE.requests().subList(requestsBefore, SOURCE.requests().size());
    assertThat(received).hasSize(1);
    assertThat(received.get(0).header("traceparent"))
        .as("the HTTP source continues the trace, under the source's span")
        .isEqualTo("00-" + CALLER_TRACE + "-" + source.getSpanId() + "-01");
  }

  private static Optional<SpanData> find(SpanKind kind) {
    return SPANS.getFinishedSpanItems().stream().filter(span -> span.getKind() == kind).findFirst();
  }

  private static SpanData named(String name) {
    return SPANS.getFinishedSpanItems().stream()
        .filter(span -> span.getName().equals(name) && span.getTraceId().equals(CALLER_TRACE))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no span '" + name + "' in the caller's trace: " + SPANS.getFinishedSpanItems()));
  }
}
