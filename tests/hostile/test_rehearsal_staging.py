"""A rehearsal leaves no decrypted byte outside its output (issue 44, class 6).

``build --as-of`` renders what is only scheduled (the items, canaries and salts of a release
not yet in force) into its --out, for maintainers to look at. The staged tree it rendered
from (``.sealboard/staged``) sat inside the repository afterwards, where the next ``git add
-f`` or a copied folder carries it. Control: an ordinary build keeps the staged tree that
``mkdocs serve`` previews (it holds only what was published).
"""

from __future__ import annotations

import pytest

from builder.pipeline.build import build
from tests.release.support import BEFORE, T, released_instance

pytestmark = pytest.mark.slow  # two whole (small) site builds


def _bytes_under(path):  # type: ignore[no-untyped-def]
    return b"".join(p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()) if path.exists() else b""


@pytest.fixture(scope="module")
def inst(tmp_path_factory):  # type: ignore[no-untyped-def]
    return released_instance(tmp_path_factory.mktemp("rehearsal") / "inst")


def test_rehearsal_removes_its_staged_tree(inst, tmp_path) -> None:
    canary = inst.items[0]["canary"].encode()
    build(inst.root, tmp_path / "rehearsal", identities=[inst.identity], now=BEFORE, as_of=T)
    assert canary in _bytes_under(tmp_path / "rehearsal")  # what was asked for: the preview
    assert not (inst.root / ".sealboard" / "staged").exists()
    assert not (inst.root / ".sealboard" / "staged.tmp").exists()
    assert canary not in _bytes_under(inst.root / ".sealboard")


def test_control_an_ordinary_build_keeps_the_preview_tree_without_embargoed_text(inst, tmp_path) -> None:
    build(inst.root, tmp_path / "normal", identities=[inst.identity], now=BEFORE)
    staged = inst.root / ".sealboard" / "staged"
    assert staged.is_dir()
    assert inst.items[0]["canary"].encode() not in _bytes_under(staged)
