package io.refresher.changes;

import io.refresher.refresh.CaptureOffsets;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.storage.MemoryOffsetBackingStore;

/**
 * The log reader's offset store, as Debezium's engine wants one (it makes it from its class name,
 * {@code offset.storage}): the offsets in memory, loaded from {@link CaptureOffsets} at start and
 * saved there at each flush. The engine flushes only offsets of records the consumer marked
 * processed, and the consumer marks a record only once its changes are applied to Redis, so what
 * is saved is never ahead of Redis.
 *
 * <p>The engine cannot be handed an object, only properties: the reader binds its {@link
 * CaptureOffsets} under an id ({@link #bind}) and names that id in {@value #BINDING}.
 */
public final class CaptureOffsetStore extends MemoryOffsetBackingStore {

  /** The engine property naming the binding of this store's {@link CaptureOffsets}. */
  public static final String BINDING = "refresher.capture.offsets";

  private static final Map<String, CaptureOffsets> BINDINGS = new ConcurrentHashMap<>();

  private CaptureOffsets offsets;

  /** Makes {@code offsets} the store of the engines configured with {@code id}. */
  public static void bind(String id, CaptureOffsets offsets) {
    BINDINGS.put(id, offsets);
  }

  public static void unbind(String id) {
    BINDINGS.remove(id);
  }

  @Override
  public void configure(WorkerConfig config) {
    super.configure(config);
    Object id = config.originals().get(BINDING);
    offsets = id == null ? null : BINDINGS.get(id.toString());
    if (offsets == null) {
      throw new IllegalStateException("no capture offsets bound as '" + id + "' (" + BINDING + ")");
    }
  }

  @Override
  public synchronized void start() {
    super.start();
    data.putAll(offsets.load());
  }

  @Override
  protected void save() {
    // on the store's own executor, after the offsets were put into data
    offsets.save(new java.util.HashMap<>(data));
  }

  @Override
  public Set<Map<String, Object>> connectorPartitions(String connectorName) {
    return Set.of();
  }
}
