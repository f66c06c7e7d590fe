"""How the client talks to Redis through redis-py: a sync driver and an asyncio one."""

from refresher.driver.outcome import CallOutcome, OutcomeKind, ScriptCall

__all__ = ["CallOutcome", "OutcomeKind", "ScriptCall"]
