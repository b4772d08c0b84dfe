"""Where the samples are in an inspect_ai ``.eval`` zip: the classic and the chunked layout.

inspect_ai writes each sample in one of two shapes (a log may mix them), told apart by the
zip's entry names alone (inspect_ai 0.3.285, ``inspect_ai/log/_recorders/chunked/format.py``
lines 10-20, layout; 42-45 and 121-136, per-sample dispatch; ``eval.py`` line 2231, the
classic name):

- classic ("monolith"): one entry ``samples/<id>_epoch_<n>.json`` holding the whole sample;
- chunked: a folder ``samples/<id>_epoch_<n>/`` holding the sample's "shell"
  ``sample.json`` (every field but the transcript and the metadata), ``metadata.json``
  (written only when the metadata is not empty), the sidecars ``skeleton.json``,
  ``events/stats.json`` and ``events/uuids.json``, and the transcript as numbered chunk
  files ``messages/<start>.json``, ``events/<start>.json``, ``calls/<start>.json`` and
  ``attachments/<start>.json`` (JSON arrays; ``inspect log convert-chunked`` writes it).

A glob over ``samples/*.json`` would read every chunk and sidecar as a sample; here each
entry under ``samples/`` is classified, chunk files are never read, and an entry that fits
neither layout (a chunk folder without its ``sample.json``, a file name the chunked layout
does not define, one sample in both shapes) is refused (``eval-layout``) naming the entry.
Each sample read is then checked to be the one its entry name says (:func:`check_named`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from builder.errors import ParseError
from builder.importers.limits import shown

SAMPLES = "samples/"
SHELL = "sample.json"
METADATA = "metadata.json"
# Every other entry the chunked layout defines inside a sample's folder (format.py lines 12-20):
# the sidecars and the chunk files, named by the index of their first item.
CHUNK_PARTS = re.compile(
    r"skeleton\.json|events/stats\.json|events/uuids\.json|(?:messages|events|calls|attachments)/(?:0|[1-9][0-9]*)\.json"
)
SAMPLE_STEM = re.compile(r"samples/(?s:.+)_epoch_[0-9]+")
LAYOUTS = (
    "inspect_ai writes samples as samples/<id>_epoch_<n>.json (classic) or in the chunked layout "
    "(samples/<id>_epoch_<n>/sample.json with metadata.json, skeleton.json and the chunk folders "
    "messages/, events/, calls/, attachments/)"
)
HINT = "a damaged archive, or a layout newer than this importer: export the log again with inspect_ai"


@dataclass(frozen=True)
class SampleEntry:
    """One sample of the archive: ``stem`` is ``samples/<id>_epoch_<n>``, ``shell`` the entry
    holding the sample (the whole of it when classic), ``metadata`` the chunked layout's
    separate metadata entry when there is one."""

    stem: str
    shell: str
    metadata: str | None = None

    @property
    def chunked(self) -> bool:
        return self.shell != self.stem + ".json"


def _refuse(message: str, where: str) -> ParseError:
    return ParseError(f"{message}; {LAYOUTS}", where=where, reason="eval-layout", hint=HINT)


def sample_entries(names: list[str], where: str) -> list[SampleEntry]:
    """The samples of an archive whose entry names are ``names``, ordered by ``stem``.

    A name repeated in the zip (inspect re-logs a requeued sample under the same name) is
    one sample: reading by name gives its last entry, as inspect's own reader does."""
    unique = sorted(n for n in dict.fromkeys(names) if n.startswith(SAMPLES) and not n.endswith("/"))
    folders = {
        n.removesuffix("/" + SHELL) for n in unique if n.endswith("/" + SHELL) and SAMPLE_STEM.fullmatch(n.removesuffix("/" + SHELL))
    }
    metadata: dict[str, str] = {}
    classic: list[str] = []
    for name in unique:
        folder = _folder(name, folders)
        if folder is not None:
            part = name[len(folder) + 1 :]
            if part == METADATA:
                metadata[folder] = name
            elif part != SHELL and not CHUNK_PARTS.fullmatch(part):
                raise _refuse(f"entry {shown(name)!r} is not part of the chunked sample layout", where)
        elif name.endswith(".json") and SAMPLE_STEM.fullmatch(name.removesuffix(".json")):
            classic.append(name.removesuffix(".json"))
        elif stem := _stem_above(name):
            raise _refuse(
                f"entry {shown(name)!r} is in a chunked sample folder with no {shown(stem)}/{SHELL} (a partial chunked layout)", where
            )
        else:
            raise _refuse(f"entry {shown(name)!r} is neither a sample file nor part of a chunked sample", where)
    both = sorted(folders.intersection(classic))
    if both:
        raise _refuse(f"sample {shown(both[0])!r} is in both layouts ({shown(both[0])}.json and {shown(both[0])}/{SHELL})", where)
    entries = [SampleEntry(stem, stem + ".json") for stem in classic]
    entries += [SampleEntry(stem, f"{stem}/{SHELL}", metadata.get(stem)) for stem in folders]
    return sorted(entries, key=lambda e: e.stem)


def _folder(name: str, folders: set[str]) -> str | None:
    """The deepest chunked sample folder holding ``name`` (sample ids may hold '/')."""
    cut = name.rfind("/")
    while cut > len(SAMPLES) - 1:
        if name[:cut] in folders:
            return name[:cut]
        cut = name.rfind("/", 0, cut)
    return None


def _stem_above(name: str) -> str | None:
    """The ``samples/<id>_epoch_<n>`` folder a stray chunked-layout entry sits in, if any."""
    cut = name.rfind("/")
    while cut > len(SAMPLES) - 1:
        if SAMPLE_STEM.fullmatch(name[:cut]):
            return name[:cut]
        cut = name.rfind("/", 0, cut)
    return None


def check_named(sample: Any, entry: SampleEntry, where: str) -> dict[str, Any]:
    """The sample, if it is an object and the sample its entry name says (inspect names the
    entry from the id and epoch it holds): a chunk, a sidecar or a copied sample is not."""
    if not isinstance(sample, dict):
        raise _refuse(f"entry {shown(entry.shell)!r} holds a JSON {type(sample).__name__}, not a sample", where)
    named = f"samples/{sample.get('id')}_epoch_{sample.get('epoch')}"
    if named != entry.stem:
        raise _refuse(f"entry {shown(entry.shell)!r} holds sample {shown(named.removeprefix(SAMPLES))!r}, not the one its name says", where)
    return sample
