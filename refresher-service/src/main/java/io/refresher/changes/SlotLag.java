package io.refresher.changes;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far a replication slot is behind its database's write-ahead log, read by every replica (not
 * only the reader: when the reader is gone, the others still show the lag growing).
 *
 * <ul>
 *   <li><b>bytes</b>: {@code pg_current_wal_lsn() - confirmed_flush_lsn}, the WAL the slot keeps
 *       on the database's disk;
 *   <li><b>seconds</b>: how long ago the log was last at the slot's confirmed position, from the
 *       log's positions sampled at each reading ({@link #read}): 0 when the slot is caught up, else
 *       the age of the oldest sample past its position: a lower bound, so that it never pages early.
 * </ul>
 *
 * Unknown values (no slot yet, the database unreachable) read as NaN, which no alert compares true.
 */
public final class SlotLag {

  private static final Logger LOG = LoggerFactory.getLogger(SlotLag.class);
  /** Samples kept: a day at one reading every 5 s. */
  static final int MAX_SAMPLES = 17_280;
  /** Less than this behind the log counts as caught up (a heartbeat's own WAL, a commit record). */
  static final long CAUGHT_UP_BYTES = 16 * 1024;

  private record Sample(long lsn, long atMillis) {}

  private final String datasource;
  private final String slot;
  private final ChangeListener.Connector connector;
  private final InstantSource clock;
  private final Deque<Sample> samples = new ArrayDeque<>();
  private Connection connection;
  private volatile double bytes = Double.NaN;
  private volatile double seconds = Double.NaN;
  private volatile double active = Double.NaN;
  private boolean failing;

  public SlotLag(String datasource, String slot, ChangeListener.Connector connector, InstantSource clock) {
    this.datasource = datasource;
    this.slot = slot;
    this.connector = connector;
    this.clock = clock;
  }

  public double bytes() {
    return bytes;
  }

  public double seconds() {
    return seconds;
  }

  /** 1 while a reader is connected to the slot, 0 when none is, NaN when unknown. */
  public double active() {
    return active;
  }

  /** Reads the slot's position and the log's; called on a schedule, one call at a time. */
  public synchronized void read() {
    try {
      if (connection == null || connection.isClosed()) {
        connection = connector.open();
      }
      try (PreparedStatement statement =
          connection.prepareStatement(
              "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn, s.confirmed_flush_lsn - '0/0'::pg_lsn, s.active"
                  + " FROM (SELECT 1) one LEFT JOIN pg_replication_slots s ON s.slot_name = ?")) {
        statement.setString(1, slot);
        try (ResultSet row = statement.executeQuery()) {
          row.next();
          long now = clock.millis();
          long current = row.getLong(1);
          record(current, now);
          long confirmed = row.getLong(2);
          if (row.wasNull()) {
            bytes = Double.NaN;
            seconds = Double.NaN;
            active = Double.NaN;
          } else {
            long behind = Math.max(0, current - confirmed);
            bytes = behind;
            seconds = behind < CAUGHT_UP_BYTES ? 0 : secondsBehind(confirmed, now);
            active = row.getBoolean(3) ? 1 : 0;
          }
        }
      }
      if (failing) {
        failing = false;
        LOG.info("the replication slot '{}' of datasource '{}' can be read again", slot, datasource);
      }
    } catch (SQLException | RuntimeException e) {
      bytes = Double.NaN;
      seconds = Double.NaN;
      active = Double.NaN;
      if (!failing) {
        failing = true;
        LOG.warn("cannot read the lag of replication slot '{}' of datasource '{}': {}", slot, datasource, e.getMessage());
      }
      close();
    }
  }

  private void record(long lsn, long atMillis) {
    Sample newest = samples.peekLast();
    if (newest == null || newest.lsn() != lsn) {
      samples.addLast(new Sample(lsn, atMillis));
      if (samples.size() > MAX_SAMPLES) {
        samples.removeFirst();
      }
    }
  }

  /** Seconds since the log was first seen past {@code confirmed}: a lower bound of the slot's delay. */
  private double secondsBehind(long confirmed, long now) {
    for (Sample sample : samples) {
      if (sample.lsn() > confirmed) {
        return (now - sample.atMillis()) / 1000.0;
      }
    }
    return 0;
  }

  public synchronized void close() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException | RuntimeException e) {
        // thrown away
      }
      connection = null;
    }
  }
}
