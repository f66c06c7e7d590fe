package io.refresher.refresh;

import java.nio.ByteBuffer;
import java.util.Map;

/**
 * Where a log reader's offsets are kept durably: the service's own PostgreSQL, so that whichever
 * replica reads next resumes where the last applied change was.
 */
public interface CaptureOffsets {

  /** Every offset saved for this reader. */
  Map<ByteBuffer, ByteBuffer> load();

  /** Saves these offsets (in one transaction), replacing those with the same keys. */
  void save(Map<ByteBuffer, ByteBuffer> offsets);
}
