"""The cross-process single-flight lock of a key: ``SET refresher:flight:{...} <token> NX PX lease``.

The same name, token rule and release script as the Java client's ``FlightLock``, so Java and
Python callers of one key exclude each other. The random token lets only its holder delete it; the
lease bounds how long a holder that died keeps others waiting.
"""

import uuid
from typing import Optional

from refresher import scripts
from refresher.protocol import cache_keys


class FlightLock:
    def __init__(self, driver, lease_millis: int):
        self._driver = driver
        self._lease_millis = lease_millis

    def try_acquire(self, key: str) -> Optional[str]:
        """The token of the lock just taken, or None when someone holds it. Does not wait."""
        token = str(uuid.uuid4())
        lock = cache_keys.flight_lock_name(key)
        # A lock holding this call's token is this call's: a client configured to retry may send
        # SET NX again after a late reply, and the second send finds the first's lock.
        if self._driver.set_if_absent(lock, token, self._lease_millis) or self._driver.get(lock) == token:
            return token
        return None

    def release(self, key: str, token: str) -> None:
        self._driver.eval(scripts.RELEASE, [cache_keys.flight_lock_name(key)], [token])


class AsyncFlightLock:
    def __init__(self, driver, lease_millis: int):
        self._driver = driver
        self._lease_millis = lease_millis

    async def try_acquire(self, key: str) -> Optional[str]:
        token = str(uuid.uuid4())
        lock = cache_keys.flight_lock_name(key)
        if await self._driver.set_if_absent(lock, token, self._lease_millis) or await self._driver.get(lock) == token:
            return token
        return None

    async def release(self, key: str, token: str) -> None:
        await self._driver.eval(scripts.RELEASE, [cache_keys.flight_lock_name(key)], [token])
