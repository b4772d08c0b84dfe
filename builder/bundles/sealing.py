"""Which key a bundle's file is sealed to, and which identity opens it.

A benchmark version has two age keys (``leaderboards/<benchmark>.yaml``):

- the **embargo key** (``embargo_recipient``): the dataset and every file a lab opts to
  publish at release. A full release publishes its identity (builder.release.identity),
  so from then on anyone opens these files from the repository;
- the **private results key** (``private_recipient``): results and transcripts a lab does
  not opt to publish (``publish_on_release: false``). Its identity is never published;
  the authorised build holds it (a further line of the SEALBOARD_IDENTITY file) to keep
  scoring those submissions after release.

Both also go to the maintainers' own age recipients (registry ``age_recipient``), so
maintainers can audit a bundle. The build opens each file with the one key its opt-in
names, and refuses a file that a lab did not opt in but that opens with the embargo key:
it would become public the day the embargo identity is published.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from builder.bundles.ingest import Rejection
from builder.bundles.manifest import RESULTS, TRANSCRIPTS, Manifest
from builder.bundles.verify import VerifiedBundle
from builder.config import BenchmarkConfig
from builder.errors import BuilderError, ConfigError, ResultsError, SealError
from builder.trust.seal import Identity, unseal

NOT_REPRODUCIBLE = "sealed-private"  # the reason a no-secret build gives for a private bundle


def recipients_for(config: BenchmarkConfig, publish: bool, maintainers: Sequence[str], what: str) -> list[str]:
    """The recipients of a file a lab does (``publish``) or does not opt to publish."""
    if publish:
        return [config.embargo_recipient, *maintainers]
    # Results must stay scorable by the authorised build, so they need the private key;
    # transcripts are never read by the build: the maintainers' recipients suffice.
    if config.private_recipient is None and (what == RESULTS or not maintainers):
        field = "results" if what == RESULTS else "transcripts"
        raise ConfigError(
            f"{what} not opted in for release must be sealed to the benchmark's private results key, and {config.id} has none",
            where=config.path,
            reason="no-private-recipient",
            hint=f"maintainers: add private_recipient (an age1… key of its own, age-keygen) to {config.path}; "
            f"or opt in with publish_on_release.{field}: true",
        )
    return [r for r in (config.private_recipient,) if r] + list(maintainers)


def sealed_to(config: BenchmarkConfig, publish: bool) -> str:
    """What `bundle create` tells a lab about a file it does (``publish``) or does not opt
    to publish: the key :func:`recipients_for` chose besides the maintainers'."""
    if publish:
        return "sealed to the embargo key: public after a full release"
    if config.private_recipient is None:  # private transcripts only: results were refused
        return "sealed to the maintainers' keys only: never published"
    return "sealed to the private results key: never published"


def no_private_key(benchmark: str, config_path: str, where: str) -> ResultsError:
    """Private results on a benchmark with no private results key: nobody could ever score
    them (the build refuses them by this reason, and `validate` before they are merged)."""
    return ResultsError(
        f"{RESULTS} is kept private (publish_on_release.results: false) but {benchmark} has no private results key to open it with",
        where=where,
        reason=NOT_REPRODUCIBLE,
        hint=f"maintainers: add private_recipient (an age1… key of its own, age-keygen) to {config_path}; "
        "labs: opt in with publish_on_release.results: true, or recreate the bundle with 'sealboard bundle create' once the key is there",
    )


def check_private_key(config: BenchmarkConfig, manifest: Manifest, where: str) -> None:
    """`validate`'s half of the rule BenchmarkKeys.open applies in the build, read from the
    manifest alone (no secret): private results need the benchmark's private results key."""
    if not manifest.publish_results and config.private_recipient is None:
        raise no_private_key(config.id, config.path, f"{where}/{RESULTS}")


def _only(identities: Sequence[Identity], recipient: str | None) -> list[Identity]:
    return [ident.select(recipient) for ident in identities if recipient and recipient in ident.recipients]


@dataclass(frozen=True)
class BenchmarkKeys:
    """The identities a build holds for one benchmark, split by key (never mixed, so a file
    opens only with the key its opt-in names)."""

    benchmark: str
    embargo: tuple[Identity, ...]
    private: tuple[Identity, ...]
    has_private: bool = True  # whether the config names a private results key at all
    config_path: str = "leaderboards/<benchmark>.yaml"

    @classmethod
    def select(cls, identities: Sequence[Identity], config: BenchmarkConfig) -> BenchmarkKeys:
        return cls(
            config.id,
            tuple(_only(identities, config.embargo_recipient)),
            tuple(_only(identities, config.private_recipient)),
            config.private_recipient is not None,
            config.path,
        )

    def open(self, sealed: bytes, published: bool, where: str) -> bytes:
        """Decrypt a bundle file whose manifest opts it in (``published``) or not."""
        name = where.rsplit("/", 1)[-1]
        field = "results" if name == RESULTS else "transcripts"
        if published:
            try:
                return unseal(sealed, list(self.embargo), where)
            except SealError as exc:
                if exc.reason != "no-matching-recipient":
                    raise
                raise ResultsError(
                    f"publish_on_release.{field} is true but {name} does not open with the embargo key of {self.benchmark}: "
                    "after release nobody could reproduce it from the repository",
                    where=where,
                    reason="no-matching-recipient",
                    hint="recreate the bundle with 'sealboard bundle create', which seals opted-in files to the embargo key",
                ) from None
        self._refuse_embargo_opening(sealed, name, field, where)
        if not self.has_private:
            raise no_private_key(self.benchmark, self.config_path, where)
        if not self.private:
            raise ResultsError(
                f"{name} is sealed to the private results key of {self.benchmark} (publish_on_release.{field}: false), "
                "which this build does not hold: not reproducible without it, so this submission is left off this build's boards",
                where=where,
                reason=NOT_REPRODUCIBLE,
                hint="only the authorised build scores it: add the private results identity as a further line of SEALBOARD_IDENTITY",
            )
        return unseal(sealed, list(self.private), where)

    def _refuse_embargo_opening(self, sealed: bytes, name: str, field: str, where: str) -> None:
        if self.embargo and _opens(sealed, self.embargo, where):
            raise ResultsError(
                f"publish_on_release.{field} is false but {name} opens with the embargo key of {self.benchmark}, "
                "which a full release publishes: the file the lab keeps private would become public",
                where=where,
                reason="private-opens-with-embargo-key",
                hint=f"recreate the bundle with 'sealboard bundle create' (it seals to the private results key), "
                f"or opt in with publish_on_release.{field}: true",
            )

    def refuse_leaky_transcripts(self, bundles: Sequence[VerifiedBundle], rejections: list[Rejection]) -> list[VerifiedBundle]:
        """The bundles whose private transcripts do not open with the embargo key; the others
        are rejected now, during the embargo, rather than leaked at release. (The build
        never decrypts private transcripts: a file not addressed to the key fails at its header.)"""
        kept = []
        for bundle in bundles:
            if not bundle.manifest.publish_transcripts and TRANSCRIPTS in bundle.files:
                where = f"{bundle.where}/{TRANSCRIPTS}"
                try:
                    self._refuse_embargo_opening(bundle.files[TRANSCRIPTS], TRANSCRIPTS, "transcripts", where)
                except BuilderError as exc:
                    rejections.append(Rejection(where, exc.reason, str(exc), exc.hint, self.benchmark, bundle.manifest.lab))
                    continue
            kept.append(bundle)
        return kept


def _opens(sealed: bytes, identities: Sequence[Identity], where: str) -> bool:
    """Whether the file opens with these identities. A file that is not addressed to them
    fails at the header (no payload is decrypted), so the check costs one X25519 per stanza."""
    try:
        unseal(sealed, list(identities), where)
    except SealError as exc:
        if exc.reason == "no-matching-recipient":
            return False
        raise
    return True
