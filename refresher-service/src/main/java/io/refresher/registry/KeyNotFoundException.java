package io.refresher.registry;

/** No registration exists for the key. */
public class KeyNotFoundException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String key;

  public KeyNotFoundException(String key) {
    super("key '" + key + "' is not registered");
    this.key = key;
  }

  public String key() {
    return key;
  }
}
