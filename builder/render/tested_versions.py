"""The third-party versions Sealboard's site was tested and measured with (issue 40).

Two pieces of the site stage depend on other projects' details: the nav cache
(``nav_cache.py``: Jinja's compiled templates, Material's nav partials) and the lunr fixes
(``lunr_fix.py``: the lunr bundled in Material's search worker). Each runs only where the
installed versions are these, and says why it stepped aside otherwise; ``pyproject.toml``
caps the same distributions at the same versions (tests/render/test_tested_versions.py).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

TESTED = {"mkdocs-material": "9.8.2", "mkdocs": "1.6.1", "Markdown": "3.11.3", "Jinja2": "3.1.6"}


def untested(*names: str) -> list[str]:
    """Of ``names`` (keys of TESTED), those installed at another version: "name version (tested: v)"."""
    out = []
    for name in names:
        try:
            installed = version(name)
        except PackageNotFoundError:
            installed = "none"
        if installed != TESTED[name]:
            out.append(f"{name} {installed} (tested: {TESTED[name]})")
    return out
