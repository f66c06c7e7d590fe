"""Fields of the metadata hash beside each value (docs/protocol.md). Times: epoch ms, Redis's clock."""

#: When the value was computed.
COMPUTED_AT = "computedAt"
#: How long the computation took, ms: XFetch's delta.
DELTA = "delta"
#: Logical expiry: XFetch's expiry.
EXPIRES_AT = "expiresAt"
#: Value size in bytes.
SIZE = "size"
#: The fence of the service's last write: Redis data epoch (0 for a value a client wrote).
EPOCH = "epoch"
#: The fence of the service's last write: lock token (0 for a value a client wrote).
TOKEN = "token"
#: The key's most recent compute durations, ms, oldest first, comma-separated.
RECENT = "recent"
#: When the source last said the value still holds; gone once the value is computed again.
REVALIDATED_AT = "revalidatedAt"
#: The source's validator for the value (ETag, Last-Modified or a version).
VALIDATOR = "validator"
