"""What the browser benchmarks share: a freshly built demo site, and a site served over HTTP.

Not a benchmark itself (bench_page_weight.py and bench_search.py import it).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from tests.shared_demo import serve


def build_demo(tmp: Path) -> tuple[Path, float, dict[str, float]]:
    """Write the demo under tmp and build it authorised: the site, the build's wall seconds
    and its stage timings."""
    from builder.demo.instance import write_demo
    from builder.pipeline.build import build, load_identities

    root = tmp / "demo"
    now = datetime.now(timezone.utc)
    write_demo(root, seed=0, now=now)
    t = time.perf_counter()
    report = build(root, root / "site", identities=load_identities(root / "keys/demo/identity.txt", None), now=now)
    return root / "site", time.perf_counter() - t, dict(report.timings)


@contextmanager
def served(site: Path, tmp: Path) -> Iterator[str]:
    """Serve site at http://127.0.0.1:<port>/s/ (a sub-path, as a project site is) while in the block."""
    www = tmp / "www"
    www.mkdir()
    (www / "s").symlink_to(site.resolve())
    with contextmanager(serve)(www) as root:
        yield root + "s/"
