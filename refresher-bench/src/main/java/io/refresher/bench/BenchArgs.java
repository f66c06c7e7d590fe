package io.refresher.bench;

/** {@code --name value} command-line options of the small benchmarks. */
final class BenchArgs {

  private BenchArgs() {}

  static int intArg(String[] args, String name, int fallback) {
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals(name)) {
        return Integer.parseInt(args[i + 1]);
      }
    }
    return fallback;
  }
}
