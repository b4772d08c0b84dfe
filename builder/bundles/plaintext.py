"""Plaintext never belongs in a repository: what counts, and what to do once it was pushed.

A lab's results, transcripts and the decrypted items are embargoed data. Sealboard seals
them (``sealboard bundle create``) and its ``.gitignore`` (builder.scaffold.ignore) keeps
the plaintext out of commits, but a ``git add -f`` or a hand-made folder can still push
them. Once in a pull request they are public (every fork, every clone and the pull
request's own refs keep them), so they are refused as a leak, with what to do — never
"list it in the manifest", which would only make the leak permanent (issue 44):

- inside a bundle folder (:func:`check_sealed`, step 0 of builder.bundles.verify, so the
  build, ``validate`` and ``bundle verify`` alike): every file but the manifest and its
  signature must be an age file (``plaintext-in-bundle``);
- anywhere else in a pull request (builder.validate.pr): a file under one of the names
  Sealboard writes plaintext to (:data:`PLAINTEXT_NAMES`, ``plaintext-in-pr``).
"""

from __future__ import annotations

import fnmatch

from builder.bundles.manifest import MANIFEST, SIGNATURE
from builder.errors import BundleError
from builder.trust.seal import VERSION_PREFIX

_AGE_HEADER = VERSION_PREFIX.encode()  # the first bytes of every age file (c2sp.org/age, "Version line")

# The file names Sealboard (and its docs) write plaintext results, transcripts and items to;
# each is also in the .gitignore it writes (tests/bundles/test_plaintext.py checks it).
PLAINTEXT_NAMES = ("items.jsonl", "*.items.jsonl", "results.jsonl", "transcripts.jsonl", "transcripts.jsonl.gz")

WHAT_TO_DO = (
    "do not sign it into a bundle. If it was pushed (a pull request, a branch, a fork), its contents are public now: delete it "
    "from every commit (git filter-repo --invert-paths --path FILE, or git rebase -i) and force-push, ask the maintainers to "
    "have the pull request's refs purged, and tell them what it held (items or answers in the clear mean new items or a new "
    "dataset version; a key means rotating it); then seal your results with 'sealboard bundle create'"
)


def is_plaintext_name(path: str) -> bool:
    """Whether the file ``path`` (``/``-separated) has a name Sealboard writes plaintext to."""
    name = path.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in PLAINTEXT_NAMES)


def check_sealed(where: str, files: dict[str, bytes]) -> None:
    """A bundle folder holds its manifest, its signature and age files only: raise
    BundleError (``plaintext-in-bundle``) naming the first other file."""
    for name in sorted(set(files) - {MANIFEST, SIGNATURE}):
        if files[name].startswith(_AGE_HEADER):
            continue
        raise BundleError(
            "is not sealed (not an age file): results, transcripts or items in the clear never belong in a repository, "
            "and a bundle holds only manifest.json, its signature and sealed files",
            where=f"{where}/{name}",
            reason="plaintext-in-bundle",
            hint=WHAT_TO_DO,
        )
