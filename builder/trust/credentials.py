"""The build's two secrets, read from a file or the environment: the embargo identity
(``--identity FILE`` or SEALBOARD_IDENTITY) and the build key (``--build-key FILE`` or
SEALBOARD_BUILD_KEY). Apart from the pipeline, so a command that only needs a secret
(`release publish-identity`, `dataset share`) does not import the whole build."""

from __future__ import annotations

from pathlib import Path

from builder.trust.seal import Identity, load_identity
from builder.trust.sshkeys import PrivateKey, load_private_key


def load_identities(identity_file: Path | None, identity_env: str | None) -> list[Identity]:
    """The embargo identity from --identity FILE or SEALBOARD_IDENTITY (the file's text)."""
    if identity_file is not None:
        return [load_identity(identity_file.read_bytes(), str(identity_file))]
    if identity_env:
        return [load_identity(identity_env, "SEALBOARD_IDENTITY")]
    return []


def load_build_key(key_file: Path | None, key_env: str | None) -> PrivateKey | None:
    """The build key (signs each deploy's attestation) from --build-key FILE or
    SEALBOARD_BUILD_KEY (the file's text); None: the deploy is not signed."""
    if key_file is not None:
        return load_private_key(key_file, str(key_file))
    if key_env:
        return load_private_key(key_env.encode(), "SEALBOARD_BUILD_KEY")
    return None
