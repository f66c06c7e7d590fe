package io.refresher.registry;

/**
 * Who made a change to the registry, recorded with it in the change log: the role of the token
 * the request presented and the token's id, a short hash (never the token), and the request's id,
 * which its log lines carry too.
 *
 * <p>The admin API sets it for the thread that serves a request ({@link #set}) and clears it when
 * the request ends; a change made outside a request is the service's own ({@link #SERVICE}). A
 * thread-bound value, as a security context is, so that the registry's operations need no
 * parameter that only their audit row reads.
 *
 * @param role {@code admin}, {@code read}, or {@code service}
 * @param tokenId the presented token's id, or null for the service
 * @param requestId the request's id, or null for the service
 */
public record ChangeActor(String role, String tokenId, String requestId) {

  /** A change the service made by itself, outside any request. */
  public static final ChangeActor SERVICE = new ChangeActor("service", null, null);

  private static final ThreadLocal<ChangeActor> CURRENT = new ThreadLocal<>();

  /** The actor of the request this thread serves, else {@link #SERVICE}. */
  public static ChangeActor current() {
    ChangeActor actor = CURRENT.get();
    return actor == null ? SERVICE : actor;
  }

  /** For the request this thread serves, until {@link #clear()}. */
  public static void set(ChangeActor actor) {
    CURRENT.set(actor);
  }

  public static void clear() {
    CURRENT.remove();
  }
}
