"""Key material in lab text: that lab's bundle is refused, before any output exists (issue 44).

The output's key scan (:mod:`builder.leakscan.keyscan`) fails the whole build: a private key
in the output is the site's own doing (a template, a page). Lab text reaches the output too
(model name, notes, harness and judge names, the submission's folder name), so a lab could
stop every deploy, public and authorised alike, by writing key-shaped text
(``AGE-SECRET-KEY-1…``, an OpenSSH or PEM private key block, its own fresh key) into one.

So every string a manifest holds, and the folder's path, is read with the output's own scan
before the bundle is verified (:func:`refuse_key_text`): by ``bundle verify``, ``validate``
and both builds (``builder.pipeline.admission``) alike, with no secret needed. A hit refuses
that bundle (``key-material``), naming the field and the kind of key, never the key; the
rest publish. The text is read as written and as a page could show it (HTML entities
decoded): what a reader could copy. (The bundle checks themselves sit below the leak scan's
package, so each caller runs this one function first.) Decrypted lab text the site may
publish after a release, answers and opted-in transcripts, is read the same way in the
build's screen stage (:func:`screen_unsealed_keys`).
Rejection messages quoting such text (a key-shaped folder name) are withheld by
:mod:`builder.leakscan.rejections`.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Iterator
from dataclasses import replace

import orjson

from builder.bundles.ingest import Rejection
from builder.bundles.manifest import MANIFEST, RESULTS, TRANSCRIPTS
from builder.errors import BundleError
from builder.leakscan.keyscan import key_material
from builder.report.records import BenchmarkState, restrict

REASON = "key-material"
# Passed to key_material as the "file name": lab text is never gzip.
_NAME = "lab-text"


def key_in_text(text: str) -> str | None:
    """The kind of private key ``text`` holds (as written or with entities decoded), or None."""
    for form in dict.fromkeys((text, html.unescape(text) if "&" in text else text)):
        found = key_material(form.encode("utf-8", "surrogatepass"), _NAME)
        if found is not None:
            return found
    return None


def strings_of(value: object, path: str = "") -> Iterator[tuple[str, str]]:
    """(field path, text) of every string in a parsed JSON value, keys included."""
    if isinstance(value, str):
        yield path or "(value)", value
    elif isinstance(value, dict):
        for key, inner in value.items():
            inner_path = f"{path}.{key}" if path else str(key)
            yield inner_path + " (a key)", str(key)
            yield from strings_of(inner, inner_path)
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from strings_of(inner, f"{path}[{i}]")


def refuse_key_text(manifest: bytes, folder: str) -> None:
    """Raise BundleError (``key-material``) if a bundle's manifest (its fields parsed, and
    its bytes as written) or its folder's path holds key material, naming the field."""
    try:
        parsed: object = orjson.loads(manifest)
    except orjson.JSONDecodeError:
        parsed = None  # the manifest check refuses it; its bytes are still read below
    texts = [*strings_of(parsed), (MANIFEST, manifest.decode("utf-8", "replace")), ("the folder's path", folder)]
    for field, text in texts:
        kind = key_in_text(text)
        if kind is None:
            continue
        raise BundleError(
            f"{field} holds {kind}; key material is never published, so this bundle is refused",
            where=f"{folder}/{MANIFEST}",
            reason="key-material",
            hint="remove it and recreate the bundle (sealboard bundle create); if it is a real key it is exposed now: "
            "rotate it (a lab SSH key: register a new one and ask maintainers to run 'sealboard keys revoke KEY --compromised') "
            "and, if you pushed it, delete it from your branch's history (git rebase -i or git filter-repo) and force-push",
        )


def _holds_key(texts: Iterable[object]) -> str | None:
    # One scan per submission: joined by line breaks, which neither pattern spans, so no key
    # is made of two texts.
    return key_in_text("\n".join(t for t in texts if isinstance(t, str)))


def screen_unsealed_keys(states: list[BenchmarkState]) -> tuple[list[BenchmarkState], list[Rejection]]:
    """The states and the rejections of the decrypted lab text the site may publish after a release, read the same way:
    answers (the results matrix, item pages) and opted-in transcripts (item pages). An answer
    holding key material refuses the submission; a transcript, its transcripts (as an
    embargoed quote does: builder.release.transcripts). Runs with or without needles."""
    out: list[BenchmarkState] = []
    rejections: list[Rejection] = []
    for state in states:
        by_key = {b.manifest.key: b for b in state.bundles}
        refused: set[str] = set()
        if state.results is not None and len(state.results) and "answer" in state.results:
            for key, answers in state.results.groupby("submission", sort=True)["answer"]:
                kind = _holds_key(answers.tolist())
                if kind is None or key not in by_key:
                    continue
                bundle = by_key[key]
                where = f"{bundle.where}/{RESULTS}"
                rejections.append(
                    Rejection(
                        where,
                        "key-material",
                        f"{where}: an answer holds {kind}; key material is never published, so this submission is refused",
                        "remove it from your answers and submit a new bundle; if the key is real, rotate it",
                        state.config.id,
                        bundle.manifest.lab,
                    )
                )
                refused.add(str(key))
        dropped = {key for key, rows in state.transcripts.items() if key not in refused and _holds_key(r.get("text") for r in rows)}
        for key in sorted(dropped):
            bundle = by_key[key]
            where = f"{bundle.where}/{TRANSCRIPTS}"
            rejections.append(
                Rejection(
                    where,
                    "key-material",
                    f"{where}: a transcript holds key material; this submission's transcripts are not published",
                    "remove it from the transcripts; if the key is real, rotate it",
                    state.config.id,
                    bundle.manifest.lab,
                )
            )
        if refused or dropped:
            state = restrict(state, set(by_key) - refused)
            state = replace(state, transcripts={k: v for k, v in state.transcripts.items() if k not in dropped})
        out.append(state)
    return out, rejections
