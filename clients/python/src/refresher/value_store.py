"""A key's value and its metadata hash (same cluster slot), read and written by one script each."""

from typing import List, Optional

from refresher import scripts
from refresher.protocol import cache_keys
from refresher.read_decision import StoredValue


def read_arguments(key: str):
    return [key, cache_keys.meta_key(key)], []


def write_arguments(key: str, value: str, ttl_millis: int, delta_millis: int):
    return [key, cache_keys.meta_key(key)], [value, str(ttl_millis), str(delta_millis)]


def stored_value(reply) -> StoredValue:
    """The read script's reply: {value, delta, expiresAt, epoch, Redis's time in ms}."""
    fields = reply if isinstance(reply, list) else []
    return StoredValue(
        _text(fields, 0),
        _number(fields, 1),
        _number(fields, 2),
        _number(fields, 3) or 0,
        _number(fields, 4) or 0,
    )


def _text(fields: List, index: int) -> Optional[str]:
    if len(fields) <= index or fields[index] is None:
        return None
    return str(fields[index])


def _number(fields: List, index: int) -> Optional[int]:
    """Metadata someone garbled is treated as absent: it must not break reads."""
    text = _text(fields, index)
    if text is None:
        return None
    try:
        return int(text.strip())
    except ValueError:
        return None


class ValueStore:
    def __init__(self, driver):
        self._driver = driver

    def get(self, key: str) -> Optional[str]:
        return self._driver.get(key)

    def read(self, key: str) -> StoredValue:
        keys, args = read_arguments(key)
        return stored_value(self._driver.eval(scripts.READ, keys, args))

    def write(self, key: str, value: str, ttl_millis: int, delta_millis: int) -> bool:
        """Whether the value was written (False: refused, a fresh value of the service's is there)."""
        keys, args = write_arguments(key, value, ttl_millis, delta_millis)
        return self._driver.eval(scripts.WRITE, keys, args) == 1


class AsyncValueStore:
    def __init__(self, driver):
        self._driver = driver

    async def get(self, key: str) -> Optional[str]:
        return await self._driver.get(key)

    async def read(self, key: str) -> StoredValue:
        keys, args = read_arguments(key)
        return stored_value(await self._driver.eval(scripts.READ, keys, args))

    async def write(self, key: str, value: str, ttl_millis: int, delta_millis: int) -> bool:
        keys, args = write_arguments(key, value, ttl_millis, delta_millis)
        return await self._driver.eval(scripts.WRITE, keys, args) == 1
