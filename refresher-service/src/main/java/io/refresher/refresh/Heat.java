package io.refresher.refresh;

/** How hot keys are, for the TTR's margin. */
public interface Heat {

  /** The key's access rate in reads per second, or NaN when not known here. */
  double rateOf(String key);

  /** The rate above which a key counts as hot. */
  double hotThreshold();

  /** For a service without access tracking: nothing is known. */
  Heat UNKNOWN =
      new Heat() {
        @Override
        public double rateOf(String key) {
          return Double.NaN;
        }

        @Override
        public double hotThreshold() {
          return 1;
        }
      };
}
