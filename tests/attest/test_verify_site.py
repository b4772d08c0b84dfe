"""The signed attestation of a deploy (issue 24, item 2), checked with stock ssh-keygen and
sha256sum, and by `sealboard verify-site`, which refuses each kind of tampering with its own
reason. Each hostile case changes one byte or one file of a copy of the signed demo deploy."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.attest.statement import SITE_TYPE_URN, STATEMENT_TYPE, canonical
from builder.attest.verify import verify_site
from builder.cli import main
from builder.errors import BuilderError
from builder.pipeline.build import build, load_build_key, load_identities
from builder.render.generator import scrubbed_env
from builder.trust.sshkeys import generate_ed25519, load_private_key
from builder.trust.sshsig import NS_SITE, sign
from tests.shared_demo import DEMO_SITE_URL

pytestmark = pytest.mark.skipif(
    shutil.which("ssh-keygen") is None or shutil.which("sha256sum") is None, reason="needs ssh-keygen and sha256sum"
)

VERIFY = ["ssh-keygen", "-Y", "verify", "-I", "sealboard-build", "-n", "sealboard-site"]


def allowed_signers(root: Path, out: Path) -> Path:
    result = CliRunner().invoke(main, ["keys", "allowed-signers", "--root", str(root), "--namespace", "sealboard-site", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def ssh_verify(signers: Path, sig: Path, data: Path) -> subprocess.CompletedProcess[str]:
    with data.open("rb") as fh:
        return subprocess.run([*VERIFY, "-f", str(signers), "-s", str(sig)], stdin=fh, capture_output=True, text=True, timeout=60)


def copy(site: Path, tmp_path: Path) -> Path:
    out = tmp_path / "site"
    shutil.copytree(site, out)
    return out


def refused(site: Path, root: Path) -> str:
    with pytest.raises(BuilderError) as exc:
        verify_site(site, root)
    return exc.value.reason


def test_statement_is_in_toto_and_lists_every_file_but_itself(demo_site):
    st = orjson.loads((demo_site.site / "attestation/statement.json").read_bytes())
    # The shared demo sets a site_url: the predicate's type is a URL under it (without one, the URN: below).
    assert st["_type"] == STATEMENT_TYPE == "https://in-toto.io/Statement/v1"
    assert st["predicateType"] == f"{DEMO_SITE_URL}data/#site-attestation-v1"
    files = sorted(p.relative_to(demo_site.site).as_posix() for p in demo_site.site.rglob("*") if p.is_file())
    names = [s["name"] for s in st["subject"]]
    assert names == [f for f in files if not f.startswith("attestation/")] and len(names) > 400
    pred = st["predicate"]
    assert pred["commit"] == _rev(demo_site.root, "HEAD") and pred["rehearsal"] is None and pred["authorised"] is True
    assert (
        pred["registry"]["version"] == 2
        and pred["registry"]["build_key"] == load_private_key(demo_site.root / "keys/demo/build_key").public.fingerprint
    )
    assert {b["id"]: b["status"] for b in pred["benchmarks"]} == {
        "kcsat-ml": "released",
        "livemathematicianbench": "partly released",
        "soohak": "embargoed",
    }
    assert len(pred["bundles"]) == sum(len(s.bundles) for s in demo_site.report.benchmarks)
    assert all(len(b["manifest_sha256"]) == 64 for b in pred["bundles"])
    # Each release in force, by the digest of its signed statement in the repository.
    assert sorted(r["benchmark"] for r in pred["releases"]) == ["kcsat-ml", "livemathematicianbench"]
    for r in pred["releases"]:
        assert r["sha256"] == hashlib.sha256((demo_site.root / r["statement"]).read_bytes()).hexdigest(), r
    assert pred["sealboard"]["version"] and pred["generator"]["name"] == "mkdocs" and pred["generator"]["version"]
    assert canonical(st) == (demo_site.site / "attestation/statement.json").read_bytes()  # canonical bytes


def test_the_embargoed_deploys_statement_names_its_commit_and_nothing_released(history):
    """The history demo's deploy of its embargoed commit (data contract only, tests/attest/conftest.py)."""
    st = orjson.loads((history.site / "attestation/statement.json").read_bytes())
    # The history demo sets no site_url: the predicate's URN.
    assert st["_type"] == STATEMENT_TYPE and st["predicateType"] == SITE_TYPE_URN
    files = sorted(p.relative_to(history.site).as_posix() for p in history.site.rglob("*") if p.is_file())
    assert [s["name"] for s in st["subject"]] == [f for f in files if not f.startswith("attestation/")]
    pred = st["predicate"]
    assert pred["commit"] == _rev(history.root, "HEAD~2") and pred["rehearsal"] is None and pred["authorised"] is True
    assert {b["id"]: b["status"] for b in pred["benchmarks"]} == {
        "kcsat-ml": "embargoed",
        "livemathematicianbench": "embargoed",
        "soohak": "embargoed",
    }
    assert len(pred["bundles"]) == sum(len(s.bundles) for s in history.report.benchmarks) > 0
    assert pred["releases"] == []  # nothing released at that commit
    assert verify_site(history.site, history.root).files == len(st["subject"])


def _rev(root: Path, rev: str) -> str:
    return subprocess.run(["git", "-C", str(root), "rev-parse", rev], capture_output=True, text=True, check=True).stdout.strip()


def test_stock_ssh_keygen_and_sha256sum_accept_the_deploy(demo_site, tmp_path):
    signers = allowed_signers(demo_site.root, tmp_path / "allowed_signers")
    lines = [line for line in signers.read_text().splitlines() if not line.startswith("#")]
    assert len(lines) == 1 and lines[0].startswith('sealboard-build namespaces="sealboard-site" ssh-ed25519 ')  # exactly the build key
    assert signers.read_text().splitlines()[1:] == (demo_site.site / "attestation/allowed_signers").read_text().splitlines()[1:]
    a = demo_site.site / "attestation"
    for name in ("statement.json", "SHA256SUMS"):
        result = ssh_verify(signers, a / f"{name}.sig", a / name)
        assert result.returncode == 0 and 'Good "sealboard-site" signature for sealboard-build with ED25519 key SHA256:' in result.stdout
    sums = subprocess.run(
        ["sha256sum", "-c", "--strict", "attestation/SHA256SUMS"], cwd=demo_site.site, capture_output=True, text=True, timeout=120
    )
    assert sums.returncode == 0 and sums.stdout.count(": OK\n") > 400 and "FAILED" not in sums.stdout
    assert verify_site(demo_site.site, demo_site.root).files == sums.stdout.count(": OK\n")


def test_other_namespace_and_other_principal_are_refused_by_ssh_keygen(demo_site, tmp_path):
    signers = allowed_signers(demo_site.root, tmp_path / "allowed_signers")
    a = demo_site.site / "attestation"
    with (a / "statement.json").open("rb") as fh:
        other_ns = subprocess.run(
            [
                "ssh-keygen",
                "-Y",
                "verify",
                "-f",
                str(signers),
                "-I",
                "sealboard-build",
                "-n",
                "sealboard-bundle",
                "-s",
                str(a / "statement.json.sig"),
            ],
            stdin=fh,
            capture_output=True,
            text=True,
        )
    with (a / "statement.json").open("rb") as fh:
        other_id = subprocess.run(
            ["ssh-keygen", "-Y", "verify", "-f", str(signers), "-I", "ada", "-n", "sealboard-site", "-s", str(a / "statement.json.sig")],
            stdin=fh,
            capture_output=True,
            text=True,
        )
    assert other_ns.returncode != 0 and other_id.returncode != 0
    # The full export lets no maintainer or lab key sign a site either.
    full = tmp_path / "all"
    assert CliRunner().invoke(main, ["keys", "allowed-signers", "--root", str(demo_site.root), "--out", str(full)]).exit_code == 0
    assert [line for line in full.read_text().splitlines() if "sealboard-site" in line] == [
        lines for lines in signers.read_text().splitlines() if lines.startswith("sealboard-build")
    ]


def test_cli_verify_site(demo_site):
    result = CliRunner().invoke(main, ["verify-site", str(demo_site.site), "--root", str(demo_site.root), "--json"])
    assert result.exit_code == 0, result.output
    out = orjson.loads(result.output)
    assert out["verified"] is True and out["files"] > 400 and out["registry_version"] == 2


def test_a_tampered_byte_is_refused(demo_site, tmp_path):
    site = copy(demo_site.site, tmp_path)
    board = site / "data/kcsat-ml/full.json"
    data = bytearray(board.read_bytes())
    data[len(data) // 2] ^= 0x01
    board.write_bytes(bytes(data))
    assert refused(site, demo_site.root) == "attestation-file-changed"
    sums = subprocess.run(["sha256sum", "-c", "--strict", "--quiet", "attestation/SHA256SUMS"], cwd=site, capture_output=True, text=True)
    assert sums.returncode != 0 and "data/kcsat-ml/full.json: FAILED" in sums.stdout


def test_a_missing_file_is_refused(demo_site, tmp_path):
    site = copy(demo_site.site, tmp_path)
    (site / "index.html").unlink()
    assert refused(site, demo_site.root) == "attestation-file-missing"
    assert subprocess.run(["sha256sum", "-c", "--quiet", "attestation/SHA256SUMS"], cwd=site, capture_output=True).returncode != 0


def test_an_extra_file_is_refused(demo_site, tmp_path):
    site = copy(demo_site.site, tmp_path)
    (site / "data/kcsat-ml/extra.json").write_text("{}")
    assert refused(site, demo_site.root) == "attestation-extra-file"
    (site / "data/kcsat-ml/extra.json").unlink()
    (site / "attestation/notes.txt").write_text("x")  # nothing foreign inside attestation/ either
    assert refused(site, demo_site.root) == "attestation-extra-file"


def test_a_changed_statement_fails_its_signature(demo_site, tmp_path):
    site = copy(demo_site.site, tmp_path)
    path = site / "attestation/statement.json"
    data = bytearray(path.read_bytes())
    i = data.index(b'"commit": "') + len(b'"commit": "')
    data[i] = ord("0") if data[i] != ord("0") else ord("1")  # one hex digit of the commit
    path.write_bytes(bytes(data))
    assert refused(site, demo_site.root) == "attestation-bad-signature"
    signers = allowed_signers(demo_site.root, tmp_path / "allowed_signers")
    assert ssh_verify(signers, site / "attestation/statement.json.sig", path).returncode != 0


def test_a_key_not_in_the_registry_is_refused(demo_site, tmp_path):
    """A whole forged attestation, consistent and validly signed, by a key the registry does not list."""
    site = copy(demo_site.site, tmp_path)
    board = site / "data/kcsat-ml/full.json"
    board.write_bytes(board.read_bytes().replace(b'"rank": 1', b'"rank": 2', 1))
    forged_key = load_private_key(generate_ed25519("forger")[0])
    _resign(site, forged_key, lambda st: st)
    assert refused(site, demo_site.root) == "attestation-key-not-registered"
    signers = allowed_signers(demo_site.root, tmp_path / "allowed_signers")
    assert ssh_verify(signers, site / "attestation/statement.json.sig", site / "attestation/statement.json").returncode != 0


def test_a_rehearsal_is_refused_even_signed_by_the_build_key(demo_site, tmp_path):
    site = copy(demo_site.site, tmp_path)
    _resign(
        site,
        load_build_key(demo_site.root / "keys/demo/build_key", None),
        lambda st: st | {"predicate": st["predicate"] | {"rehearsal": "2027-01-15T09:00:00Z"}},
    )
    assert refused(site, demo_site.root) == "attestation-rehearsal"


def test_an_unsigned_deploy_is_refused(demo_site, tmp_path):
    site = copy(demo_site.site, tmp_path)
    for sig in (site / "attestation").glob("*.sig"):
        sig.unlink()
    assert refused(site, demo_site.root) == "attestation-unsigned"
    shutil.rmtree(site / "attestation")
    assert refused(site, demo_site.root) == "attestation-missing"


def test_sums_that_disagree_with_the_statement_are_refused(demo_site, tmp_path):
    site = copy(demo_site.site, tmp_path)
    sums = site / "attestation/SHA256SUMS"
    sums.write_bytes(b"".join(line + b"\n" for line in sums.read_bytes().splitlines()[1:]))
    assert refused(site, demo_site.root) == "attestation-sums-mismatch"


def test_a_build_key_the_registry_does_not_list_stops_the_build(demo_site, tmp_path):
    other = load_private_key(generate_ed25519("other")[0])
    with pytest.raises(BuilderError) as exc:
        build(
            demo_site.root, tmp_path / "out", identities=load_identities(demo_site.root / "keys/demo/identity.txt", None), build_key=other
        )
    assert exc.value.reason == "build-key-not-registered" and not (tmp_path / "out").exists()


def test_the_build_key_never_reaches_output_nor_the_generator(demo_site):
    key_text = (demo_site.root / "keys/demo/build_key").read_bytes()
    secret_line = key_text.splitlines()[4]  # base64 of the private scalar (the first lines are public)
    for path in demo_site.site.rglob("*"):
        if path.is_file():
            assert secret_line not in path.read_bytes(), path
    assert "SEALBOARD_BUILD_KEY" not in scrubbed_env({"SEALBOARD_BUILD_KEY": key_text.decode(), "PATH": "/bin"})
    # git ignores the demo's private build key, like its other throwaway keys.
    ignored = subprocess.run(["git", "-C", str(demo_site.root), "check-ignore", "keys/demo/build_key"], capture_output=True, text=True)
    assert ignored.returncode == 0
    assert (
        subprocess.run(["git", "-C", str(demo_site.root), "check-ignore", "keys/demo/build_key.pub"], capture_output=True).returncode == 1
    )


def _resign(site: Path, key, change) -> None:
    """Recompute subjects and SHA256SUMS for the files as they are, apply `change`, sign with `key`."""
    from builder.attest.dsse import sign_envelope
    from builder.attest.provenance import provenance
    from builder.attest.statement import parse, sha256sums, statement, subjects_of

    old = orjson.loads((site / "attestation/statement.json").read_bytes())
    subjects = subjects_of(site)
    st = change(statement(subjects, old["predicate"]))
    data = canonical(st)
    (site / "attestation/statement.json").write_bytes(data)
    (site / "attestation/statement.json.sig").write_text(sign(key, data, NS_SITE))
    sums = sha256sums(subjects)
    (site / "attestation/SHA256SUMS").write_bytes(sums)
    (site / "attestation/SHA256SUMS.sig").write_text(sign(key, sums, NS_SITE))
    (site / "attestation/statement.intoto.jsonl").write_bytes(sign_envelope(data, key))
    (site / "attestation/provenance.intoto.jsonl").write_bytes(sign_envelope(canonical(provenance(parse(data, "s"), sums)), key))


def test_a_revoked_build_key_no_longer_attests(demo_site, tmp_path):
    """A leaked build key is revoked like any key (threshold-signed): its deploys stop verifying."""
    from builder.trust.registry_admin import retire, revoke, sign_registry

    root = tmp_path / "repo"
    shutil.copytree(demo_site.root / "keys", root / "keys", symlinks=True)
    fingerprint = load_private_key(demo_site.root / "keys/demo/build_key").public.fingerprint
    with pytest.raises(BuilderError) as exc:
        retire(root, fingerprint)
    assert exc.value.reason == "build-key-rotation"
    revoke(root, fingerprint, "build machine compromised")
    for maintainer in ("ada", "emmy"):
        sign_registry(root, root / "keys/demo" / maintainer)
    assert refused(demo_site.site, root) == "attestation-key-not-registered"
    assert verify_site(demo_site.site, demo_site.root).files > 400  # the repository before the revocation
