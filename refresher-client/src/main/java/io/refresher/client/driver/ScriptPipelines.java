package io.refresher.client.driver;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs a pipeline of script calls by {@code EVALSHA}, and again by {@code EVAL} for the calls a
 * node answered {@code NOSCRIPT} (it did not run them: a restarted or new node has no scripts).
 */
public final class ScriptPipelines {

  /** Sends {@code calls} in one pipeline, by the script's SHA-1 or by its text. */
  @FunctionalInterface
  public interface Sender {
    List<CallOutcome> send(List<ScriptCall> calls, boolean bySha);
  }

  private ScriptPipelines() {}

  public static List<CallOutcome> run(List<ScriptCall> calls, Sender sender) {
    List<CallOutcome> outcomes = new ArrayList<>(sender.send(calls, true));
    List<Integer> unknownScript = new ArrayList<>();
    for (int i = 0; i < outcomes.size(); i++) {
      CallOutcome outcome = outcomes.get(i);
      if (outcome.kind() == CallOutcome.Kind.NOT_RUN
          && outcome.failure() != null
          && ErrorReplies.isNoScript(outcome.failure().getMessage())) {
        unknownScript.add(i);
      }
    }
    if (unknownScript.isEmpty()) {
      return outcomes;
    }
    List<ScriptCall> again = new ArrayList<>(unknownScript.size());
    unknownScript.forEach(i -> again.add(calls.get(i)));
    List<CallOutcome> second = sender.send(again, false);
    for (int j = 0; j < unknownScript.size(); j++) {
      outcomes.set(unknownScript.get(j), second.get(j));
    }
    return outcomes;
  }
}
