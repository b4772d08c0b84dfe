"""The changelog lists, with dates, each release, each new or withdrawn submission and each
registry version (dated by the commit that admitted it), newest first. Expectations are
written out by hand from the instance below."""

from __future__ import annotations

import subprocess
from datetime import timedelta

from builder.pipeline.build import build
from builder.release.pages import changelog_entries, site_release_pages
from builder.trust.registry_admin import remove_maintainer, sign_registry
from tests.factory import NOW, results_for
from tests.pipeline.test_admission import commit
from tests.release.support import AFTER, T, released_instance

TOMBSTONE = """format: sealboard-withdrawn/1
withdrawn: 2026-11-30T08:15:00Z
created: 2026-11-29T12:00:00Z
reason: lab request <wrong harness>
"""


def test_changelog_lists_releases_submissions_withdrawals_and_registry_versions(tmp_path):
    inst = released_instance(tmp_path / "inst")  # acme/run-1 and beta/run-1, created NOW; statement r1 at T
    inst.add_submission("acme", "run-2", results_for(inst.items))
    (inst.root / "bundles" / "soohak" / "acme" / "run-2.withdrawn").write_text(TOMBSTONE)
    subprocess.run(["git", "init", "-q", "-b", "main", str(inst.root)], check=True)
    commit(inst.root, "instance", NOW + timedelta(hours=1))  # registry v0001 and v0002 admitted
    remove_maintainer(inst.root, "m3")
    for m in ("m1", "m2"):
        sign_registry(inst.root, inst.maintainer_keys[m])
    commit(inst.root, "registry v0003", T + timedelta(days=2, minutes=7))

    report = build(inst.root, identities=[inst.identity], now=AFTER + timedelta(days=3), render=False)
    assert [(e["date"], e["benchmark"], e["what"]) for e in changelog_entries(report)] == [
        ("2027-01-17 09:07", None, "key registry version 3 (maintainers m1, m2; threshold 2)"),
        ("2027-01-15 09:00", "soohak", "release of the whole version (in force)"),
        ("2026-11-30 08:15", "soohak", "submission withdrawn by maintainers: acme/run-2: lab request &lt;wrong harness&gt;"),
        ("2026-11-29 13:00", None, "key registry version 2 (maintainers m1, m2, m3; threshold 2)"),
        ("2026-11-29 13:00", None, "key registry version 1 (maintainers m1, m2, m3; threshold 2)"),
        ("2026-11-29 12:00", "soohak", "new submission Model One Beta (beta/run-1)"),
        ("2026-11-29 12:00", "soohak", "new submission Model One (acme/run-1)"),
    ]
    page = site_release_pages(report)["changelog.md"]
    assert "| 2026-11-30 08:15 | soohak | submission withdrawn by maintainers: acme/run-2" in page
    assert "the git commit that admitted it" in page
    # The withdrawn bundle is a rejection of the build, not a changelog line of its own.
    assert {r.where: r.reason for r in report.rejections} == {"bundles/soohak/acme/run-2": "withdrawn"}


def test_registry_versions_outside_git_are_undated(tmp_path):
    inst = released_instance(tmp_path / "inst")
    report = build(inst.root, identities=[inst.identity], now=AFTER, render=False)
    registry = [e for e in changelog_entries(report) if e["benchmark"] is None]
    assert [(e["date"], e["what"]) for e in registry] == [
        (None, "key registry version 2 (maintainers m1, m2, m3; threshold 2) — not committed: undated"),
        (None, "key registry version 1 (maintainers m1, m2, m3; threshold 2) — not committed: undated"),
    ]


def test_changelog_leaves_out_what_is_dated_after_the_rehearsal_clock(tmp_path):
    """A rehearsal (--as-of) shows the changelog as of its clock: a withdrawal and a registry
    version dated later are not listed yet; the signed release is listed (scheduled)."""
    inst = released_instance(tmp_path / "inst")
    inst.add_submission("acme", "run-2", results_for(inst.items))
    (inst.root / "bundles" / "soohak" / "acme" / "run-2.withdrawn").write_text(
        TOMBSTONE.replace("2026-11-30T08:15:00Z", "2027-01-16T10:00:00Z")
    )
    subprocess.run(["git", "init", "-q", "-b", "main", str(inst.root)], check=True)
    commit(inst.root, "instance", NOW + timedelta(hours=1))
    remove_maintainer(inst.root, "m3")
    for m in ("m1", "m2"):
        sign_registry(inst.root, inst.maintainer_keys[m])
    commit(inst.root, "registry v0003", T + timedelta(days=2, minutes=7))
    now = AFTER + timedelta(days=3)

    def listed(as_of):
        report = build(inst.root, identities=[inst.identity], now=now, as_of=as_of, render=False)
        return [(e["date"], e["what"]) for e in changelog_entries(report)]

    withdrawal = ("2027-01-16 10:00", "submission withdrawn by maintainers: acme/run-2: lab request &lt;wrong harness&gt;")
    registry_v3 = ("2027-01-17 09:07", "key registry version 3 (maintainers m1, m2; threshold 2)")
    before_release = listed(T - timedelta(hours=1))
    assert ("2027-01-15 09:00", "release of the whole version (scheduled)") in before_release
    assert withdrawal not in before_release and registry_v3 not in before_release
    at_after = listed(AFTER)  # T + 1 h: the release is in force, the withdrawal still ahead
    assert ("2027-01-15 09:00", "release of the whole version (in force)") in at_after
    assert withdrawal not in at_after and registry_v3 not in at_after
    assert len(at_after) == 5  # the release, two registry versions, two submissions
    later = listed(T + timedelta(days=2, minutes=7))  # the clock reaches both, inclusive
    assert later[:2] == [registry_v3, withdrawal]
    assert listed(None)[:2] == [registry_v3, withdrawal]  # a plain build: judged at now
