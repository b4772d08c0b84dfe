"""The third-party versions Sealboard's site was tested and measured with (issue 40).

One piece of the site stage depends on another project's details: the lunr fixes
(``lunr_fix.py``: the lunr bundled in Material's search worker). They run only where the
installed Material is this one, and say why they stepped aside otherwise; ``pyproject.toml``
caps the generator's distributions at these versions (tests/render/test_tested_versions.py).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

TESTED = {"mkdocs-material": "9.8.2", "mkdocs": "1.6.1", "Markdown": "3.11.3"}


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
