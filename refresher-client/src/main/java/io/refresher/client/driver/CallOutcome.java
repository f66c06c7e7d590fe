package io.refresher.client.driver;

/** What became of one pipelined call, and the failure when it did not run as asked. */
public record CallOutcome(Kind kind, Throwable failure) {

  public enum Kind {
    /** Redis ran it and answered. */
    DONE,
    /** Redis surely did not run it (never sent, no connection, an error reply): safe to send again. */
    NOT_RUN,
    /** Sent, answer lost: Redis may have run it. Never sent again. */
    UNKNOWN
  }

  private static final CallOutcome DONE = new CallOutcome(Kind.DONE, null);

  public static CallOutcome done() {
    return DONE;
  }

  public static CallOutcome notRun(Throwable failure) {
    return new CallOutcome(Kind.NOT_RUN, failure);
  }

  public static CallOutcome unknown(Throwable failure) {
    return new CallOutcome(Kind.UNKNOWN, failure);
  }
}
