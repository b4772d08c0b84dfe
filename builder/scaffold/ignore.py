"""The .gitignore every Sealboard repository starts with: each plaintext path Sealboard or
its docs write, so decrypted items, results and rehearsals never reach a commit unnoticed.

Unanchored names (no leading ``/``) on purpose: ``age -d … > items.jsonl`` and ``sealboard
import`` write into whatever folder the person is in. The authorised build still scans the
checkout (builder.pipeline.checkout) for what a ``git add -f`` could carry past this list.
"""

from __future__ import annotations

PLAINTEXT_PATHS = (
    "site/",  # the built site (`sealboard build`): deployed by CI, never committed
    ".sealboard/",  # staged pages of the last build
    "rehearsal/",  # `build --as-of` output of older versions: embargoed text and answers
    "items.jsonl",  # decrypted items (`age -d … > items.jsonl`; `dataset create --items`)
    "*.items.jsonl",
    "results.jsonl",  # `sealboard import` output: per-item results, sealed only in a bundle
    "run.yaml",  # `sealboard import`'s run description skeleton
    "transcripts.jsonl",  # plaintext transcripts before `bundle create` seals them
    "transcripts.jsonl.gz",
    "*identity*.txt",  # age identities (the embargo key)
    "*.key",
)


def gitignore_text(extra: tuple[str, ...] = ()) -> str:
    head = "# Plaintext Sealboard writes: never commit it (see README, 'Never commit').\n"
    return head + "".join(f"{line}\n" for line in (*PLAINTEXT_PATHS, *extra))
