package io.refresher.persistence;

import io.refresher.access.PopularityArchive;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.PreparedBatch;

/** Popularity snapshots in PostgreSQL ({@code refresher_popularity}), one row per key. */
public final class JdbiPopularityArchive implements PopularityArchive {

  private static final int BATCH = 1000;

  private final Jdbi jdbi;

  public JdbiPopularityArchive(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  @Override
  public void save(Map<String, Double> ratesByKey, Instant sampledAt, Instant forgetBefore) {
    Timestamp at = Timestamp.from(sampledAt);
    JdbiRegistrationRepository.call(
        () ->
            jdbi.inTransaction(
                handle -> {
                  PreparedBatch batch =
                      handle.prepareBatch(
                          "INSERT INTO refresher_popularity (key, rate, sampled_at) VALUES (:key, :rate, :at) "
                              + "ON CONFLICT (key) DO UPDATE SET rate = EXCLUDED.rate, sampled_at = EXCLUDED.sampled_at");
                  int pending = 0;
                  for (Map.Entry<String, Double> entry : ratesByKey.entrySet()) {
                    batch.bind("key", entry.getKey()).bind("rate", entry.getValue()).bind("at", at).add();
                    if (++pending == BATCH) {
                      batch.execute();
                      batch =
                          handle.prepareBatch(
                              "INSERT INTO refresher_popularity (key, rate, sampled_at) VALUES (:key, :rate, :at) "
                                  + "ON CONFLICT (key) DO UPDATE SET rate = EXCLUDED.rate, sampled_at = EXCLUDED.sampled_at");
                      pending = 0;
                    }
                  }
                  if (pending > 0) {
                    batch.execute();
                  }
                  handle
                      .createUpdate("DELETE FROM refresher_popularity WHERE sampled_at < :before")
                      .bind("before", Timestamp.from(forgetBefore))
                      .execute();
                  return null;
                }));
  }

  @Override
  public List<Saved> top(int limit) {
    return JdbiRegistrationRepository.call(
        () ->
            jdbi.withHandle(
                handle ->
                    handle
                        .createQuery(
                            "SELECT key, rate, sampled_at FROM refresher_popularity ORDER BY rate DESC, key LIMIT :limit")
                        .bind("limit", limit)
                        .map(
                            (rs, ctx) ->
                                new Saved(rs.getString("key"), rs.getDouble("rate"), rs.getTimestamp("sampled_at").toInstant()))
                        .list()));
  }
}
