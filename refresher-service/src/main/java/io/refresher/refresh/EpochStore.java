package io.refresher.refresh;

/**
 * Durable high-water mark of Redis data epochs (PostgreSQL): it survives Redis losing its data,
 * which is exactly when a new epoch is needed.
 */
public interface EpochStore {

  /**
   * Increments and returns the epoch.
   *
   * @throws io.refresher.failure.RegistryUnavailableException when the store cannot be reached
   */
  long advance();
}
