package io.refresher.changes;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.zip.CRC32;

/**
 * The session-level advisory lock whose holder is the one replica listening on a datasource:
 * {@code pg_try_advisory_lock(classid, objid)}, with a fixed {@link #CLASS_ID} and an object id
 * derived from the replicas' cluster name (the Quartz scheduler name they share) and the
 * datasource's name. Two deployments of the service that read from one database (each with its own
 * Redis) therefore each have a listener; the replicas of one deployment share one.
 *
 * <p>It is held until the session ends (or an explicit unlock, which this service never issues):
 * PostgreSQL releases it when the connection closes or dies, which is what hands leadership over.
 * Find the listening session with {@code SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND
 * classid = 1380141127 AND granted}.
 */
public final class LeaderLock {

  /** "RCHG" in ASCII: the refresher's change listeners. */
  public static final int CLASS_ID = 0x52434847;
  /** "RCAP" in ASCII: the refresher's readers of the write-ahead log (change capture). */
  public static final int CAPTURE_CLASS_ID = 0x52434150;

  private final int classId;
  private final int objectId;

  private LeaderLock(int classId, int objectId) {
    this.classId = classId;
    this.objectId = objectId;
  }

  /** The lock of {@code datasource}'s listener in the deployment named {@code cluster}. */
  public static LeaderLock of(String cluster, String datasource) {
    return new LeaderLock(CLASS_ID, objectId(cluster, datasource));
  }

  /** The lock of {@code datasource}'s log reader (change capture) in the deployment named {@code cluster}. */
  public static LeaderLock ofCapture(String cluster, String datasource) {
    return new LeaderLock(CAPTURE_CLASS_ID, objectId(cluster, datasource));
  }

  private static int objectId(String cluster, String datasource) {
    CRC32 crc = new CRC32();
    crc.update((cluster + "/" + datasource).getBytes(StandardCharsets.UTF_8));
    return (int) crc.getValue();
  }

  public int objectId() {
    return objectId;
  }

  /** Takes the lock for the session of {@code connection} if no other session holds it; never waits. */
  public boolean tryAcquire(Connection connection) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("SELECT pg_try_advisory_lock(?, ?)")) {
      statement.setInt(1, classId);
      statement.setInt(2, objectId);
      try (ResultSet result = statement.executeQuery()) {
        return result.next() && result.getBoolean(1);
      }
    }
  }

  @Override
  public String toString() {
    return "(" + classId + ", " + objectId + ")";
  }
}
