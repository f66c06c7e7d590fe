"""One pipelined script call, and what became of it."""

import enum
from dataclasses import dataclass
from typing import Optional, Sequence


@dataclass(frozen=True)
class ScriptCall:
    """One call of a script in a pipeline: its keys (one slot: the first routes it) and arguments."""

    keys: Sequence[str]
    args: Sequence[str]


class OutcomeKind(enum.Enum):
    #: Redis ran it and answered.
    DONE = "done"
    #: Redis surely did not run it (no connection, an error reply given instead): safe to send again.
    NOT_RUN = "not_run"
    #: Sent, answer lost: Redis may have run it. Never sent again.
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class CallOutcome:
    kind: OutcomeKind
    failure: Optional[BaseException] = None

    @staticmethod
    def done() -> "CallOutcome":
        return _DONE

    @staticmethod
    def not_run(failure: BaseException) -> "CallOutcome":
        return CallOutcome(OutcomeKind.NOT_RUN, failure)

    @staticmethod
    def unknown(failure: BaseException) -> "CallOutcome":
        return CallOutcome(OutcomeKind.UNKNOWN, failure)


_DONE = CallOutcome(OutcomeKind.DONE)
