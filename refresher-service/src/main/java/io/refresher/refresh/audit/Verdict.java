package io.refresher.refresh.audit;

/** What a sample of the consistency audit concluded. */
public enum Verdict {
  /** Redis serves what the source gives (at once, or once a change in flight was applied). */
  MATCH,
  /** Redis serves something else than the source gives, beyond what the key's refresh allows. */
  MISMATCH,
  /** The source's answer changed while the sample waited: nothing can be said. Not a sample. */
  INCONCLUSIVE
}
