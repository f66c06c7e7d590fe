package io.refresher.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The stop-the-world collections of this JVM (the service's and the load's) while a measurement
 * runs: how many, how long in all and the longest, from the collectors' own notifications. A
 * latency tail as long as the longest pause is the collector's, not the code's. Concurrent cycles
 * (G1's and ZGC's "concurrent" collectors) run beside the application and are not counted.
 */
public final class GcPauses implements AutoCloseable {

  /** What was seen. */
  public record Seen(long pauses, long totalMillis, long longestMillis) {}

  private final List<NotificationEmitter> emitters = new ArrayList<>();
  private final AtomicLong pauses = new AtomicLong();
  private final AtomicLong totalMillis = new AtomicLong();
  private final LongAccumulator longestMillis = new LongAccumulator(Math::max, 0);
  private final NotificationListener listener = this::onNotification;

  private GcPauses() {}

  /** Starts counting. */
  public static GcPauses start() {
    GcPauses counting = new GcPauses();
    for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (collector instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(counting.listener, null, null);
        counting.emitters.add(emitter);
      }
    }
    return counting;
  }

  private void onNotification(Notification notification, Object handback) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
      return;
    }
    GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
    if (info.getGcName().toLowerCase(java.util.Locale.ROOT).contains("concurrent")) {
      return; // runs beside the application: not a pause
    }
    long millis = info.getGcInfo().getDuration();
    pauses.incrementAndGet();
    totalMillis.addAndGet(millis);
    longestMillis.accumulate(millis);
  }

  /** What was seen so far. */
  public Seen seen() {
    return new Seen(pauses.get(), totalMillis.get(), longestMillis.get());
  }

  @Override
  public void close() {
    for (NotificationEmitter emitter : emitters) {
      try {
        emitter.removeNotificationListener(listener);
      } catch (ListenerNotFoundException e) {
        // already gone
      }
    }
  }
}
