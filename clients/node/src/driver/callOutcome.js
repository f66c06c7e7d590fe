/**
 * What became of one pipelined call (Java's CallOutcome): DONE, Redis ran it and answered;
 * NOT_RUN, Redis surely did not run it (never sent, no connection, an error reply given instead of
 * running it), safe to send again; UNKNOWN, sent and the answer lost, Redis may have run it: never
 * sent again.
 */
export const OutcomeKind = Object.freeze({ DONE: 'DONE', NOT_RUN: 'NOT_RUN', UNKNOWN: 'UNKNOWN' });

const DONE = Object.freeze({ kind: OutcomeKind.DONE, failure: null });

export const CallOutcome = Object.freeze({
  done: () => DONE,
  notRun: (failure) => Object.freeze({ kind: OutcomeKind.NOT_RUN, failure }),
  unknown: (failure) => Object.freeze({ kind: OutcomeKind.UNKNOWN, failure }),
});
