package io.refresher.persistence;

import io.refresher.refresh.EpochStore;
import org.jdbi.v3.core.Jdbi;

/** The epoch high-water mark in {@code refresher_epoch}. */
public final class JdbiEpochStore implements EpochStore {

  private final Jdbi jdbi;

  public JdbiEpochStore(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  @Override
  public long advance() {
    return JdbiRegistrationRepository.call(
        () ->
            jdbi.withHandle(
                handle ->
                    handle
                        .createQuery("UPDATE refresher_epoch SET epoch = epoch + 1 WHERE id = 1 RETURNING epoch")
                        .mapTo(Long.class)
                        .one()));
  }
}
