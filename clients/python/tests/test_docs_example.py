"""docs/client/python.md's first python block, run word for word against the test Redis."""

import contextlib
import io
import re

from conftest import HERE, counted_reads

PAGE = HERE.parent.parent.parent / "docs" / "client" / "python.md"


def first_python_block() -> str:
    match = re.search(r"^```python\n(.*?)^```$", PAGE.read_text(encoding="utf-8"), re.MULTILINE | re.DOTALL)
    assert match, f"no python block in {PAGE}"
    return match.group(1)


def test_the_pages_example_runs_as_shown(redis, redis_url, monkeypatch):
    monkeypatch.setenv("REDIS_URL", redis_url)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(first_python_block(), str(PAGE), "exec"), {"__name__": "__main__"})
    assert printed.getvalue() == 'banner: None, product: {"id":42,"name":"Phone Pro"}\n'
    assert redis.get("product:42") == '{"id":42,"name":"Phone Pro"}'
    assert counted_reads(redis, "banner:home") == 1 and counted_reads(redis, "product:42") == 1
