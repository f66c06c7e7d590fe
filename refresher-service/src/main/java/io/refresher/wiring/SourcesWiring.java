package io.refresher.wiring;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.setup.Environment;
import io.refresher.config.DatabaseFactory;
import io.refresher.config.RefresherConfiguration;
import io.refresher.config.SourceFactory;
import io.refresher.http.HttpEndpointSettings;
import io.refresher.http.HttpEndpoints;
import io.refresher.http.HttpValueLoader;
import io.refresher.jdbc.JdbcValueLoader;
import io.refresher.metrics.SourceLoadMetrics;
import io.refresher.redis.RedisSourceLoad;
import io.refresher.refresh.LoadBound;
import io.refresher.refresh.RoutedValueLoader;
import io.refresher.refresh.SourceShares;
import io.refresher.refresh.ValueLoader;
import io.refresher.source.SourceCatalog;
import io.refresher.source.SourceDefinition;
import io.refresher.refresh.DispatchSettings;
import io.refresher.refresh.RefreshSettings;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The named sources of {@code config.yml} and what they are read through: read-only pools per
 * datasource, the SQL and HTTP loaders, and the load bounds every replica shares in Redis.
 *
 * @param queriesPerSecond each datasource's and HTTP endpoint's {@code maxQueriesPerSecond}
 * @param load the cluster-wide bounds, as {@code /v1/prewarm} shows them
 * @param shares the bounds, with each source held to its share of a shared pool
 */
record SourcesWiring(
    SourceCatalog catalog,
    ValueLoader loader,
    Map<String, Integer> queriesPerSecond,
    RedisSourceLoad load,
    SourceShares shares) {

  /** @param localClock this machine's: what an HTTP {@code Retry-After} date is read against */
  static SourcesWiring wire(
      RefresherConfiguration config,
      Environment environment,
      DispatchSettings dispatch,
      RefreshSettings refresh,
      RedisWiring redis,
      InstantSource localClock) {
    List<SourceDefinition> definitions = new ArrayList<>();
    config.getSources().forEach((name, factory) -> definitions.add(factory.build(name)));
    SourceCatalog catalog = new SourceCatalog(definitions);
    Function<String, String> datasourceOfSource =
        source -> catalog.find(source).map(SourceDefinition::datasource).orElse(null);

    // Every worker may run a query at once, and a manual refresh or two beside them.
    int defaultPoolSize = Math.max(2, dispatch.workers() + 2);
    Map<String, DataSource> pools = new LinkedHashMap<>();
    pools.put(
        SourceFactory.DEFAULT_DATASOURCE,
        config.getDatabase().build(environment, "refresher-sources-default", true, defaultPoolSize, null));
    config.getDatasources().forEach(
        (name, datasource) ->
            pools.put(
                name, datasource.build(environment, "refresher-sources-" + name, true, datasource.getMaxPoolSize(), null)));
    ValueLoader loader = loader(config, environment, catalog, pools, refresh.maxValueBytes(), localClock);

    Map<String, Integer> queriesPerSecond = new LinkedHashMap<>();
    List<LoadBound> bounds = new ArrayList<>();
    queriesPerSecond.put(SourceFactory.DEFAULT_DATASOURCE, config.getDatabase().getMaxQueriesPerSecond());
    bounds.add(config.getDatabase().loadBound(SourceFactory.DEFAULT_DATASOURCE));
    config.getDatasources().forEach((name, datasource) -> {
      queriesPerSecond.put(name, datasource.getMaxQueriesPerSecond());
      bounds.add(datasource.loadBound(name));
    });
    config.getHttpEndpoints().forEach((name, endpoint) -> {
      queriesPerSecond.put(name, endpoint.getMaxQueriesPerSecond());
      bounds.add(endpoint.loadBound(name));
    });
    SourceLoadMetrics loadMetrics = new SourceLoadMetrics(environment.metrics());
    RedisSourceLoad load =
        new RedisSourceLoad(redis.redisson(), bounds, datasourceOfSource, loadMetrics, refresh.lockLease(), redis.reachability());
    loadMetrics.register(load);
    load.initialise();
    Map<String, Integer> slots = shareSlots(config, catalog, defaultPoolSize);
    SourceShares shares =
        new SourceShares(
            load,
            source -> slots.getOrDefault(source, 0),
            source -> environment.metrics().counter("refresher.source." + source + ".share-full").inc());
    return new SourcesWiring(catalog, loader, Map.copyOf(queriesPerSecond), load, shares);
  }

  /** SQL sources on JDBC, HTTP sources through their endpoints' clients; both closed at stop. */
  private static ValueLoader loader(
      RefresherConfiguration config,
      Environment environment,
      SourceCatalog catalog,
      Map<String, DataSource> pools,
      long maxValueBytes,
      InstantSource localClock) {
    ObjectMapper json = environment.getObjectMapper();
    JdbcValueLoader sql =
        new JdbcValueLoader(
            catalog,
            pools,
            json,
            maxValueBytes,
            Threads.scheduler("refresher-jdbc-deadlines-", 1),
            Threads.onDemand("refresher-jdbc-cancel-"));
    environment.lifecycle().manage(Lifecycles.closing("SQL sources", sql::close));
    if (config.getHttpEndpoints().isEmpty()) {
      return sql;
    }
    Map<String, HttpEndpointSettings> settings = new LinkedHashMap<>();
    config.getHttpEndpoints().forEach((name, endpoint) -> settings.put(name, endpoint.settings(name)));
    HttpEndpoints endpoints =
        HttpEndpoints.create(
            settings, environment.metrics(), Threads.scheduler("refresher-http-deadlines-", 1), localClock);
    environment.lifecycle().manage(Lifecycles.closing("HTTP sources", endpoints::close));
    ValueLoader http = new HttpValueLoader(catalog, endpoints, json, maxValueBytes);
    Map<String, ValueLoader> httpSources = new LinkedHashMap<>();
    catalog.all().stream().filter(SourceDefinition::isHttp).forEach(source -> httpSources.put(source.name(), http));
    return new RoutedValueLoader(httpSources, sql);
  }

  /**
   * The concurrent queries each source may run on this replica: its datasource's {@code
   * sourceShare} of the pool, for sources that share a datasource with others (a source alone on
   * its datasource has no share to keep).
   */
  private static Map<String, Integer> shareSlots(RefresherConfiguration config, SourceCatalog catalog, int defaultPoolSize) {
    Map<String, List<String>> sourcesByDatasource = new LinkedHashMap<>();
    for (SourceDefinition source : catalog.all()) {
      sourcesByDatasource.computeIfAbsent(source.datasource(), name -> new ArrayList<>()).add(source.name());
    }
    Map<String, Integer> slots = new LinkedHashMap<>();
    sourcesByDatasource.forEach(
        (datasource, sources) -> {
          boolean isDefault = SourceFactory.DEFAULT_DATASOURCE.equals(datasource);
          DatabaseFactory factory = isDefault ? config.getDatabase() : config.getDatasources().get(datasource);
          if (sources.size() < 2 || factory == null || factory.getSourceShare() >= 1.0) {
            return;
          }
          int each = SourceShares.slots(factory.getSourceShare(), isDefault ? defaultPoolSize : factory.getMaxPoolSize());
          sources.forEach(source -> slots.put(source, each));
        });
    return slots;
  }
}
