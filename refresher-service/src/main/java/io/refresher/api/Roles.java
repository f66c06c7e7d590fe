package io.refresher.api;

/**
 * The roles of the admin API, as {@code @RolesAllowed} names them. A resource class allows {@link
 * #ADMIN} only, so a method added without an annotation of its own is admin-only; its GET methods
 * also allow {@link #READ}.
 */
public final class Roles {

  /** Every request: registrations, templates, refreshes, prewarms, deletions. */
  public static final String ADMIN = "admin";

  /** GET requests only: listings and live status, for dashboards and on-call tooling. */
  public static final String READ = "read";

  private Roles() {}
}
