"""Plaintext never belongs in a repository: what counts, and what to do once it was pushed.

A lab's results, transcripts and the decrypted items are embargoed data. Sealboard seals
them (``sealboard bundle create``) and its ``.gitignore`` (builder.scaffold.ignore) keeps
the plaintext out of commits, but a ``git add -f`` or a hand-made folder can still push
them. Once in a pull request they are public (every fork, every clone and the pull
request's own refs keep them), so they are refused as a leak, with what to do — never
"list it in the manifest", which would only make the leak permanent (issue 44):

- inside a bundle folder (:func:`check_sealed`, step 0 of builder.bundles.verify, so the
  build, ``validate`` and ``bundle verify`` alike): a file but the manifest and its
  signature that is readable without a key (:func:`in_the_clear`: text or a compressed
  archive, not an age file) is refused (``plaintext-in-bundle``);
- anywhere else in a pull request (builder.validate.pr): a file under one of the names
  Sealboard writes plaintext to (:data:`PLAINTEXT_NAMES`, ``plaintext-in-pr``).
"""

from __future__ import annotations

import fnmatch

from builder.bundles.manifest import MANIFEST, SIGNATURE
from builder.errors import BundleError
from builder.trust.seal import VERSION_PREFIX

_AGE_HEADER = VERSION_PREFIX.encode()  # the first bytes of every age file (c2sp.org/age, "Version line")
# An ASCII-armored age file is text but ciphertext all the same: it is sealed (and refused
# later, as armored-refused, by the policy in builder.trust.seal), never plaintext.
_AGE_ARMOR = b"-----BEGIN AGE ENCRYPTED FILE-----"

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


# Compressed containers a reader opens without a key: gzip (transcripts.jsonl.gz), zip, xz,
# bzip2, zstd. Their bytes are not text, but what they hold is.
_ARCHIVE_MAGIC = (b"\x1f\x8b", b"PK\x03\x04", b"\xfd7zXZ\x00", b"BZh", b"\x28\xb5\x2f\xfd")


def in_the_clear(data: bytes) -> bool:
    """Whether a bundle file's bytes are readable without a key: not an age file, and text
    (UTF-8) or a compressed archive. An armored age file is sealed. A sealed file with a byte changed in its header is
    neither (its payload is ciphertext): the digest check names that one."""
    if data.startswith(_AGE_HEADER) or data.lstrip(b" \t\r\n").startswith(_AGE_ARMOR):
        return False
    if data.startswith(_ARCHIVE_MAGIC):
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def check_sealed(where: str, files: dict[str, bytes]) -> None:
    """A bundle folder holds its manifest, its signature and sealed files only: raise
    BundleError (``plaintext-in-bundle``) naming the first file in the clear."""
    for name in sorted(set(files) - {MANIFEST, SIGNATURE}):
        if not in_the_clear(files[name]):
            continue
        raise BundleError(
            "is not sealed (not an age file): results, transcripts or items in the clear never belong in a repository, "
            "and a bundle holds only manifest.json, its signature and sealed files",
            where=f"{where}/{name}",
            reason="plaintext-in-bundle",
            hint=WHAT_TO_DO,
        )
