package io.refresher.client.protocol;

/**
 * The value the service stores for a key whose source found nothing (no row; an HTTP status the
 * source names as "not found"), with its source's shorter {@code notFound.ttl}: the key is known
 * to have no value, which is not the same as not cached. A reader that sees it answers "absent"
 * without going to the database; the clients do (a {@code get} returns none and runs no loader).
 * It begins with a NUL character, which no text or JSON value does. See {@code docs/protocol.md}
 * ("Known absent").
 */
public final class NotFoundMarker {

  /** The marker, exactly: a NUL, then {@code refresher:absent}. */
  public static final String VALUE = "\u0000refresher:absent";

  private NotFoundMarker() {}

  /** Whether a value read from Redis is the marker. */
  public static boolean is(String value) {
    return VALUE.equals(value);
  }
}
