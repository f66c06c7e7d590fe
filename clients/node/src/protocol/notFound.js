/**
 * The service's not-found marker (docs/protocol.md, "Known absent"): the value it stores for a key
 * whose source found nothing, with the source's shorter notFound.ttl. The key is known to have no
 * value. A NUL, then "refresher:absent".
 */
export const NOT_FOUND_MARKER = '\u0000refresher:absent';

/** Whether a value read from Redis is the marker. */
export function isNotFound(value) {
  return value === NOT_FOUND_MARKER;
}

/** What a caller gets for a value read from Redis: null for the marker. */
export function visible(value) {
  return isNotFound(value) ? null : value;
}
