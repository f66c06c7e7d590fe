package io.refresher.persistence;

import io.refresher.refresh.CaptureOffsets;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;

/**
 * A log reader's offsets in {@code refresher_capture_offset} ({@code db-migrations/V5}), one row
 * per offset key, for one deployment (the replicas' cluster name) and datasource.
 */
public final class JdbiCaptureOffsets implements CaptureOffsets {

  private final Jdbi jdbi;
  private final String deployment;
  private final String datasource;

  public JdbiCaptureOffsets(Jdbi jdbi, String deployment, String datasource) {
    this.jdbi = jdbi;
    this.deployment = deployment;
    this.datasource = datasource;
  }

  @Override
  public Map<ByteBuffer, ByteBuffer> load() {
    return jdbi.withHandle(
        handle ->
            handle
                .createQuery(
                    "SELECT offset_key, offset_value FROM refresher_capture_offset WHERE deployment = :deployment AND datasource = :datasource")
                .bind("deployment", deployment)
                .bind("datasource", datasource)
                .reduceRows(
                    new HashMap<ByteBuffer, ByteBuffer>(),
                    (offsets, row) -> {
                      byte[] value = row.getColumn("offset_value", byte[].class);
                      offsets.put(ByteBuffer.wrap(row.getColumn("offset_key", byte[].class)), value == null ? null : ByteBuffer.wrap(value));
                      return offsets;
                    }));
  }

  @Override
  public void save(Map<ByteBuffer, ByteBuffer> offsets) {
    jdbi.useTransaction(
        handle -> {
          var batch =
              handle.prepareBatch(
                  "INSERT INTO refresher_capture_offset (deployment, datasource, offset_key, offset_value, saved_at)"
                      + " VALUES (:deployment, :datasource, :key, :value, now())"
                      + " ON CONFLICT (deployment, datasource, offset_key) DO UPDATE SET offset_value = EXCLUDED.offset_value, saved_at = now()");
          offsets.forEach(
              (key, value) ->
                  batch
                      .bind("deployment", deployment)
                      .bind("datasource", datasource)
                      .bind("key", bytes(key))
                      .bind("value", value == null ? null : bytes(value))
                      .add());
          batch.execute();
        });
  }

  private static byte[] bytes(ByteBuffer buffer) {
    ByteBuffer copy = buffer.duplicate();
    byte[] bytes = new byte[copy.remaining()];
    copy.get(bytes);
    return bytes;
  }
}
