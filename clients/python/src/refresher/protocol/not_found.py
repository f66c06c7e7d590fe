"""The service's not-found marker (docs/protocol.md, "Known absent")."""

from typing import Optional

#: The value the service stores for a key whose source found nothing, with the source's shorter
#: ``notFound.ttl``: the key is known to have no value. A NUL, then ``refresher:absent``.
NOT_FOUND_MARKER = "\u0000refresher:absent"


def is_not_found(value: Optional[str]) -> bool:
    """Whether a value read from Redis is the marker."""
    return value == NOT_FOUND_MARKER


def visible(value: Optional[str]) -> Optional[str]:
    """What a caller gets for a value read from Redis: None for the marker."""
    return None if is_not_found(value) else value
