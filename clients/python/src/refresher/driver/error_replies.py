"""Redis's error replies that it gives instead of running a command.

A call answered with one of them surely did not run, so its read counts may be sent again. ``ERR``
and a script's own errors are not among them: a script may have written before failing. The list
is the Java client's (``ErrorReplies``).

redis-py turns some replies into classes of their own and strips the code from the message
(``NOSCRIPT ...`` becomes ``NoScriptError("...")``), so both the class and the message's first word
are looked at.
"""

from redis import exceptions as redis_errors

REFUSED_WITHOUT_RUNNING = frozenset(
    {
        "OOM", "READONLY", "LOADING", "BUSY", "CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN", "NOAUTH",
        "WRONGPASS", "NOPERM", "NOSCRIPT", "MOVED", "ASK", "NOREPLICAS", "MISCONF",
    }
)


def _classes(*names):
    found = []
    for name in names:
        cls = getattr(redis_errors, name, None)
        if isinstance(cls, type):
            found.append(cls)
    return tuple(found)


# Replies redis-py parses into these classes are refusals whatever their message now says.
# (Some of them derive from ConnectionError in redis-py: they are still replies, the connection
# is fine, and nothing ran.)
_REFUSAL_CLASSES = _classes(
    "NoScriptError",
    "ReadOnlyError",
    "BusyLoadingError",
    "AuthenticationError",
    "NoPermissionError",
    "ClusterDownError",
    "TryAgainError",
    "MasterDownError",
    "MovedError",
    "AskError",
    "OutOfMemoryError",
)


def is_error_reply(failure: BaseException) -> bool:
    """Whether Redis answered with an error (rather than the connection failing)."""
    return isinstance(failure, redis_errors.ResponseError) or isinstance(failure, _REFUSAL_CLASSES)


def refused_without_running(failure: BaseException) -> bool:
    """Whether this error reply means Redis did not run the command."""
    if isinstance(failure, _REFUSAL_CLASSES):
        return True
    if not isinstance(failure, redis_errors.ResponseError):
        return False
    message = str(failure).strip()
    code = message.split(" ", 1)[0].upper() if message else ""
    return code in REFUSED_WITHOUT_RUNNING


def is_no_script(failure: BaseException) -> bool:
    """Whether the reply says Redis does not have the script (send it by ``EVAL`` instead)."""
    no_script = getattr(redis_errors, "NoScriptError", None)
    if no_script is not None and isinstance(failure, no_script):
        return True
    return isinstance(failure, redis_errors.ResponseError) and str(failure).strip().upper().startswith("NOSCRIPT")
