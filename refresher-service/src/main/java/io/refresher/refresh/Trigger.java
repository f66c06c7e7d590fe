package io.refresher.refresh;

/** Why a refresh ran; every trigger goes through the same path. */
public enum Trigger {
  /** Its due time came. */
  SCHEDULED,
  /** It was just registered or replaced. */
  REGISTERED,
  /** An operator asked for it. */
  MANUAL,
  /** A notification said its data changed. */
  CHANGE,
  /** The consistency audit found its value differing from its source. */
  AUDIT
}
