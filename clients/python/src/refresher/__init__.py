"""Python client of Refresher: counted Redis reads, early recomputation (XFetch) and a
single-flight loader across threads and processes. See docs/client/python.md."""

import logging

from refresher.access_counter import AccessCounter, AccessStats, AsyncAccessCounter
from refresher.async_client import AsyncRefresherClient
from refresher.client import RefresherClient
from refresher.early_recompute import EarlyRecompute
from refresher.stats import Stats

__version__ = "0.1.0.dev0"

# A library logs, the application decides where to: nothing is printed unless it configures logging.
logging.getLogger("refresher").addHandler(logging.NullHandler())

__all__ = [
    "RefresherClient",
    "AsyncRefresherClient",
    "AccessCounter",
    "AsyncAccessCounter",
    "AccessStats",
    "EarlyRecompute",
    "Stats",
]
