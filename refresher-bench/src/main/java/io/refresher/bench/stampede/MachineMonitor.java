package io.refresher.bench.stampede;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * What the machine did during a run, to explain slow reads with measurements rather than
 * guesses: the whole machine's CPU use every 100 ms ({@code /proc/stat}: every process, the
 * benchmark's servers and whatever else runs there), and this JVM's GC pauses.
 */
final class MachineMonitor implements AutoCloseable {

  /** CPU busy (0..1, all cores) over the 100 ms ending at {@code atMicros}. */
  record CpuSample(long atMicros, double busy) {}

  /** A stop-the-world GC pause of this JVM. */
  record GcPause(long startMicros, long durationMicros, String collector, String cause) {}

  private final List<CpuSample> cpu = new ArrayList<>();
  private final List<GcPause> pauses = new ArrayList<>();
  private final Thread sampler;
  private final NotificationListener listener;
  private final long jvmStartMillis = ManagementFactory.getRuntimeMXBean().getStartTime();
  private volatile boolean stopping;

  MachineMonitor() {
    listener =
        (notification, handback) -> {
          if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
          }
          GarbageCollectionNotificationInfo info =
              GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
          if (info.getGcName().contains("Concurrent") || info.getGcName().contains("Cycles")) {
            return; // concurrent work, not a pause
          }
          long start = (jvmStartMillis + info.getGcInfo().getStartTime()) * 1_000;
          long duration = info.getGcInfo().getDuration() * 1_000;
          synchronized (pauses) {
            pauses.add(new GcPause(start, duration, info.getGcName(), info.getGcCause()));
          }
        };
    for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (bean instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(listener, null, null);
      }
    }
    sampler = new Thread(this::sample, "stampede-cpu-sampler");
    sampler.setDaemon(true);
    sampler.start();
  }

  private void sample() {
    long[] last = readStat();
    while (!stopping) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        return;
      }
      long[] now = readStat();
      if (last != null && now != null && now[1] > last[1]) {
        double busy = 1.0 - (double) (now[0] - last[0]) / (now[1] - last[1]);
        synchronized (cpu) {
          cpu.add(new CpuSample(WriteLog.nowMicros(), busy));
        }
      }
      last = now;
    }
  }

  /** {idle + iowait, total} jiffies of all cores, or null off Linux. */
  private static long[] readStat() {
    try {
      String line = Files.readAllLines(Path.of("/proc/stat")).get(0);
      String[] fields = line.trim().split("\\s+");
      long total = 0;
      for (int i = 1; i < fields.length; i++) {
        total += Long.parseLong(fields[i]);
      }
      long idle = Long.parseLong(fields[4]) + (fields.length > 5 ? Long.parseLong(fields[5]) : 0);
      return new long[] {idle, total};
    } catch (Exception e) {
      return null;
    }
  }

  List<CpuSample> cpu() {
    synchronized (cpu) {
      return new ArrayList<>(cpu);
    }
  }

  List<GcPause> pauses() {
    synchronized (pauses) {
      return new ArrayList<>(pauses);
    }
  }

  @Override
  public void close() throws InterruptedException {
    stopping = true;
    sampler.join(1_000);
    for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (bean instanceof NotificationEmitter emitter) {
        try {
          emitter.removeNotificationListener(listener);
        } catch (Exception e) {
          // not registered
        }
      }
    }
  }
}
