package io.refresher.persistence;

import io.refresher.access.PopularityArchive;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.PreparedBatch;

/** Popularity snapshots in PostgreSQL ({@code refresher_popularity}), replaced whole each time. */
public final class JdbiPopularityArchive implements PopularityArchive {

  private static final int BATCH = 1000;

  private final Jdbi jdbi;

  public JdbiPopularityArchive(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  @Override
  public void save(Map<String, Double> ratesByKey, Instant sampledAt) {
    Timestamp at = Timestamp.from(sampledAt);
    JdbiRegistrationRepository.call(
        () ->
            jdbi.inTransaction(
                handle -> {
                  handle.execute("DELETE FROM refresher_popularity");
                  PreparedBatch batch =
                      handle.prepareBatch(
                          "INSERT INTO refresher_popularity (key, rate, sampled_at) VALUES (:key, :rate, :at)");
                  int pending = 0;
                  for (Map.Entry<String, Double> entry : ratesByKey.entrySet()) {
                    batch.bind("key", entry.getKey()).bind("rate", entry.getValue()).bind("at", at).add();
                    if (++pending == BATCH) {
                      batch.execute();
                      pending = 0;
                    }
                  }
                  if (pending > 0) {
                    batch.execute();
                  }
                  return null;
                }));
  }

  @Override
  public Map<String, Double> top(int limit) {
    return JdbiRegistrationRepository.call(
        () ->
            jdbi.withHandle(
                handle -> {
                  Map<String, Double> top = new LinkedHashMap<>();
                  handle
                      .createQuery("SELECT key, rate FROM refresher_popularity ORDER BY rate DESC, key LIMIT :limit")
                      .bind("limit", limit)
                      .map((rs, ctx) -> Map.entry(rs.getString("key"), rs.getDouble("rate")))
                      .forEach(entry -> top.put(entry.getKey(), entry.getValue()));
                  return top;
                }));
  }
}
