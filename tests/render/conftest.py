"""The browser tests' shared fixture: a browser context per test module, in the worker's one
headless Chromium (``chromium`` in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.render.cdp import Browser, Context


@pytest.fixture(scope="module")
def browser(chromium: Browser) -> Iterator[Context]:
    context = chromium.context()
    yield context
    context.close()
