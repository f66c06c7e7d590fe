package io.refresher.client.driver;

import java.util.List;
import java.util.Objects;

/** One call of a script in a pipeline: its keys (one slot) and arguments. */
public record ScriptCall(List<String> keys, List<String> args) {

  public ScriptCall {
    keys = List.copyOf(Objects.requireNonNull(keys, "keys"));
    args = List.copyOf(Objects.requireNonNull(args, "args"));
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("a script call needs a key: the key routes it in a cluster");
    }
  }
}
