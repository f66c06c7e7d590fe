package io.refresher.wiring;

import io.dropwizard.core.server.AbstractServerFactory;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jersey.setup.JerseyEnvironment;
import io.refresher.api.AdminApiAuth;
import io.refresher.api.ErrorMappers;
import io.refresher.api.FeedsResource;
import io.refresher.api.OverviewResource;
import io.refresher.api.AuditResource;
import io.refresher.api.ChangeResource;
import io.refresher.api.WhoAmIResource;
import io.refresher.api.HotResource;
import io.refresher.api.HttpEdges;
import io.refresher.api.KeyPaths;
import io.refresher.api.KeyResource;
import io.refresher.api.OpenApiDocument;
import io.refresher.api.OpenApiResource;
import io.refresher.api.PrewarmResource;
import io.refresher.api.RefreshResource;
import io.refresher.api.SourceResource;
import io.refresher.api.TemplateResource;
import io.refresher.refresh.ChangeFeedsReport;
import io.refresher.config.AdminFactory;
import io.refresher.config.RefresherConfiguration;
import io.refresher.metrics.SourceLoadMetrics;
import io.refresher.refresh.BulkRefresh;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;

/** The admin API: its HTTP edges (limits, errors, key paths), its tokens and its resources. */
final class AdminApiWiring {

  /** Refreshes of one {@code POST /v1/refresh} that run at once; the load bound protects the database. */
  private static final int BULK_REFRESH_THREADS = 4;

  private AdminApiWiring() {}

  /** Before anything else touches the server: how every request is read and every error written. */
  static void installEdges(RefresherConfiguration config, Environment environment) {
    if (config.getServerFactory() instanceof AbstractServerFactory server) {
      // Every error, including Jersey's own, is rendered by ErrorMappers as JSON.
      server.setRegisterDefaultExceptionMappers(false);
    }
    KeyPaths.allowEncodedSlashes(config.getServerFactory(), environment.getApplicationContext());
    HttpEdges.install(
        environment.getApplicationContext(),
        environment.lifecycle(),
        environment.servlets(),
        environment.jersey(),
        environment.getObjectMapper(),
        config.getAdmin().getMaxBodySize().toBytes());
  }

  static void registerResources(
      RefresherConfiguration config,
      Environment environment,
      SourcesWiring sources,
      RegistryWiring registry,
      AccessWiring access,
      PrewarmWiring prewarm,
      RefreshWiring refresh,
      AuditWiring audit,
      Supplier<ChangeFeedsReport> feeds,
      OverviewWiring overview) {
    AdminFactory admin = config.getAdmin();
    JerseyEnvironment jersey = environment.jersey();
    ErrorMappers.register(jersey.getResourceConfig());
    AdminApiAuth.register(jersey, admin.adminTokens(), admin.allReadTokens());
    jersey.register(new KeyResource(registry.registry(), refresh.service(), registry.resolver(), access.hotSet()));
    // A few refreshes of one request at a time, on threads of their own: they only overlap the waits.
    ExecutorService bulkThreads =
        environment.lifecycle()
            .executorService("bulk-refresh-%d")
            .minThreads(BULK_REFRESH_THREADS)
            .maxThreads(BULK_REFRESH_THREADS)
            .build();
    BulkRefresh bulk = new BulkRefresh(registry.resolver(), refresh.refresher(), bulkThreads, BULK_REFRESH_THREADS);
    jersey.register(new RefreshResource(bulk, registry.templates(), registry.registry()));
    jersey.register(new HotResource(access.hotSet(), registry.resolver(), refresh.service(), access.uncovered()));
    jersey.register(
        new SourceResource(
            sources.catalog(), registry.repository()::countBySource, access.hotSet(), registry.resolver(), refresh.metrics()::sourceTotals));
    jersey.register(new TemplateResource(registry.templates()));
    jersey.register(new ChangeResource(registry.changes()));
    jersey.register(new WhoAmIResource());
    jersey.register(new FeedsResource(feeds));
    jersey.register(
        new OverviewResource(
            overview.history(), OverviewWiring.INTERVAL, overview.hotKeysCap(), prewarm.epochGuard(), prewarm.epochGuard()::latestChange));
    jersey.register(
        new PrewarmResource(
            prewarm.prewarmer(),
            prewarm.epochGuard(),
            () -> SourceLoadMetrics.view(environment.metrics(), sources.load())));
    jersey.register(
        new AuditResource(
            audit.ledger(), audit.settings().window(), audit.settings().objective(), audit.settings().enabled(), audit.clock()));
    jersey.register(new OpenApiResource(() -> OpenApiDocument.json(admin.getMaxParamLength())));
  }
}
