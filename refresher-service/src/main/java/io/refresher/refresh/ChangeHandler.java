package io.refresher.refresh;

import io.refresher.source.SourceDefinition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where change notifications enter the domain: which channels to listen on, per datasource, and
 * what a notification on one of them means. A notification names keys ({@link ChangeKeys}) by the
 * feeds of the sources that declared its channel; each key goes to the coalescer, which refreshes
 * or evicts it ({@link ChangeRefresh}) at most once per window. Called on the listener's thread:
 * it never blocks (no I/O here).
 */
public final class ChangeHandler {

  private static final Logger LOG = LoggerFactory.getLogger(ChangeHandler.class);

  /** Sources with a change feed, by datasource, then by channel. */
  private final Map<String, Map<String, List<SourceDefinition>>> feeds;
  private final ChangeKeys keys;
  private final ChangeCoalescer coalescer;
  private final ChangeEvents events;
  /** Sources whose unusable payloads were logged at WARN already (after that, DEBUG). */
  private final Set<String> warnedSources = ConcurrentHashMap.newKeySet();

  public ChangeHandler(
      Collection<SourceDefinition> sources, ChangeKeys keys, ChangeCoalescer coalescer, ChangeEvents events) {
    Map<String, Map<String, List<SourceDefinition>>> byDatasource = new LinkedHashMap<>();
    for (SourceDefinition source : sources) {
      if (source.changes() == null || source.isHttp()) {
        continue;
      }
      byDatasource
          .computeIfAbsent(source.datasource(), datasource -> new LinkedHashMap<>())
          .computeIfAbsent(source.changes().channel(), channel -> new ArrayList<>())
          .add(source);
    }
    this.feeds = Collections.unmodifiableMap(byDatasource);
    this.keys = keys;
    this.coalescer = coalescer;
    this.events = events;
  }

  /** The channels to listen on, by datasource; empty when no source has a change feed. */
  public Map<String, Set<String>> channelsByDatasource() {
    Map<String, Set<String>> channels = new LinkedHashMap<>();
    feeds.forEach((datasource, byChannel) -> channels.put(datasource, new LinkedHashSet<>(byChannel.keySet())));
    return channels;
  }

  /** A notification arrived on {@code channel} of {@code datasource}. */
  public void onNotification(String datasource, String channel, String payload) {
    events.received();
    List<SourceDefinition> sources = feeds.getOrDefault(datasource, Map.of()).get(channel);
    if (sources == null) {
      events.ignored();
      LOG.debug("notification on channel '{}' of datasource '{}' ignored: no source listens to it", channel, datasource);
      return;
    }
    Set<String> named = new LinkedHashSet<>();
    String problem = null;
    for (SourceDefinition source : sources) {
      ChangeKeys.Named found = keys.keysOf(source, payload);
      named.addAll(found.keys());
      if (found.keys().isEmpty()) {
        problem = "source '" + source.name() + "': " + found.problem();
      }
    }
    if (named.isEmpty()) {
      events.ignored();
      logUnusable(sources.get(0).name(), channel, payload, problem);
      return;
    }
    for (String key : named) {
      coalescer.changed(key);
    }
  }

  private void logUnusable(String source, String channel, String payload, String problem) {
    String shown = payload == null ? "" : payload.length() > 200 ? payload.substring(0, 200) + "..." : payload;
    if (warnedSources.add(source)) {
      LOG.warn(
          "notification on channel '{}' names no key ({}); payload '{}'. Further ones of this source are logged at DEBUG, counted in refresher.changes.ignored",
          channel,
          problem,
          shown);
    } else {
      LOG.debug("notification on channel '{}' names no key ({}); payload '{}'", channel, problem, shown);
    }
  }
}
