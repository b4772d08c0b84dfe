"""The browser tests' shared fixture: one headless Chromium per test module."""

from __future__ import annotations

import pytest

from tests.render.cdp import CHROMIUM, Browser


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    b = Browser(CHROMIUM, tmp_path_factory.mktemp("chromium-profile"))
    yield b
    b.close()
