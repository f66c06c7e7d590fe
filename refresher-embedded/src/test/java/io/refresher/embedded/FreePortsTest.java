package io.refresher.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Ports handed out by {@link FreePorts} are distinct, outside the OS's ephemeral range (where an
 * outgoing connection or another JVM's {@code bind(0)} could take them before the server binds),
 * and reserved across JVMs: a port another JVM holds is locked here and never handed out.
 */
class FreePortsTest {

  private static final int PORTS = 200;

  @Test
  void portsFromOneJvm_distinct_belowTheEphemeralRange_andTheirBusPortsToo() {
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < PORTS; i++) {
      ports.add(FreePorts.next());
    }

    assertThat(ports).hasSize(PORTS);
    // Linux starts its ephemeral range at 32768 by default, macOS at 49152; a Redis Cluster
    // node's bus port is its port + 10000.
    assertThat(ports).allSatisfy(port -> assertThat(port + 10_000).isLessThan(32_768));
    assertThat(ports).noneMatch(port -> ports.contains(port + 10_000));
  }

  @Test
  void portsHeldByAnotherJvm_areLockedHere_andNeverHandedOutHere() throws Exception {
    Process holder =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                Holder.class.getName())
            .redirectErrorStream(true)
            .start();
    try {
      List<Integer> held = new ArrayList<>();
      BufferedReader lines = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
      for (String line = lines.readLine(); line != null && !line.equals("held"); line = lines.readLine()) {
        held.add(Integer.parseInt(line.trim()));
      }
      assertThat(held).as("ports the other JVM took").hasSize(PORTS);

      Set<Integer> mine = new HashSet<>();
      for (int i = 0; i < PORTS; i++) {
        mine.add(FreePorts.next());
      }

      assertThat(mine).doesNotContainAnyElementsOf(held);
      Path locks = Path.of(System.getProperty("java.io.tmpdir"), "refresher-ports");
      for (int port : held) {
        try (FileChannel channel = FileChannel.open(locks.resolve(port + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
          FileLock lock = channel.tryLock();
          assertThat(lock).as("port %d's reservation, held by the other JVM", port).isNull();
        }
      }
    } finally {
      holder.destroyForcibly();
      holder.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /**
   * The other JVM: takes ports, prints them, then holds them until its standard input ends (the
   * test kills it, or the test JVM is gone and the pipe closes), so it never outlives the test.
   */
  public static final class Holder {
    public static void main(String[] args) throws java.io.IOException {
      for (int i = 0; i < PORTS; i++) {
        System.out.println(FreePorts.next());
      }
      System.out.println("held");
      System.out.flush();
      while (System.in.read() != -1) {
        // holds until the parent closes the pipe
      }
    }
  }
}
