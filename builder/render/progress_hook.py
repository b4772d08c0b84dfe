"""mkdocs hook of the generated site config: the pages converted and written so far, on
stderr, for the build's progress line (``render/generator.py``).

The build used to run mkdocs with ``--verbose`` and count its debug lines (``Reading:``,
``Building page``). mkdocs writes five debug lines a page (most of them "Running `page_context`
event from plugin…"), and formatting them through its logging was an eighth of the whole
site stage (bench/bench_site.py). This hook counts the pages itself and writes one line of
counts at most every ``EVERY_SECONDS``, plus one at the end, and only when the build asks for
it (``PROGRESS_ENV`` in the child's environment): ``mkdocs serve`` on the staged tree stays quiet.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from mkdocs.plugins import event_priority

from builder.render.generator import PROGRESS_ENV, PROGRESS_PREFIX

EVERY_SECONDS = 0.5

_counts = {"converted": 0, "written": 0}
_last = [0.0]  # when the last line was written


def _report(force: bool = False) -> None:
    if not os.environ.get(PROGRESS_ENV):
        return
    now = time.monotonic()
    if force or now - _last[0] >= EVERY_SECONDS:
        _last[0] = now
        sys.stderr.write(f"{PROGRESS_PREFIX} converted={_counts['converted']} written={_counts['written']}\n")
        sys.stderr.flush()


def on_pre_build(config: Any) -> None:
    _counts.update(converted=0, written=0)


@event_priority(-100)  # after every other hook's work on the page
def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    _counts["converted"] += 1
    _report()
    return html


@event_priority(-100)
def on_post_page(output: str, page: Any, config: Any) -> str:
    _counts["written"] += 1
    _report()
    return output


def on_post_build(config: Any) -> None:
    _report(force=True)
