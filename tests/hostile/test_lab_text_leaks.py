"""Issue 44, class 3: no lab can stop every deploy with its text.

Lab text that trips a scan refuses that lab's bundle, named, and the rest publish; only the
site's own bytes fail the build. Three routes:

1. key-shaped text (an age secret key, an OpenSSH or PEM private key block, the lab's own
   fresh key) in any field a lab writes, or as its folder's name: refused before verify
   (``key-material``, builder.leakscan.labkeys) by ``bundle verify``, ``validate`` and both
   builds alike — never at the output scan;
2. embargoed item text in a merged lab bundle's files that the lab-text screen did not
   refuse (a withdrawn bundle, one refused for something else, a stray file): refused per
   bundle by the checkout scan (``embargoed-text``, builder.pipeline.checkout), and removed
   by maintainers with a tombstone and ``git rm``, which ``validate`` accepts as a withdrawal;
3. plaintext results or items pushed in a pull request: a leak (``plaintext-in-bundle``,
   ``plaintext-in-pr``) with what to do, never "sign it into the bundle".

Each case asserts the exact reason; the controls are the valid bundles still publishing and
innocent text passing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.bundles.withdrawn import FORMAT as TOMBSTONE_FORMAT
from builder.cli import main
from builder.leakscan.labkeys import key_in_text
from builder.pipeline.build import build
from builder.scaffold.ignore import gitignore_text
from builder.trust.agekeys import generate_identity
from builder.validate.pr import FAILED, PASSED, REVIEW, validate
from hostile.support import (
    ACME,
    BETA,
    BETA_ROWS,
    ITEMS,
    NOW,
    VALID_ROWS,
    Instance,
    assert_rejected,
    edit_manifest,
    new_key,
    outcome,
    published,
    rows_bytes,
    run,
    set_field,
    set_payload,
    where_of,
)
from hostile.test_validate_pr import B, Repo, base_repo, commit, git, repo  # noqa: F401  (fixtures)

pytestmark = pytest.mark.slow  # builds sites, public and authorised

AGE_KEY = generate_identity().reveal_secret().strip().splitlines()[-1]
assert AGE_KEY.startswith("AGE-SECRET-KEY-1")
CANARY = ITEMS[0]["canary"]
KEY = "key-material"
MANIFEST_OF_BETA = where_of(BETA, "manifest.json")


def fresh_ssh_key(tmp: Path) -> str:
    """The lab's own freshly made OpenSSH private key, as `cat` shows it."""
    _, path = new_key(tmp, "fresh")
    return path.read_text().strip()


def no_key_in(report) -> None:
    for r in report.rejections:
        assert key_in_text(f"{r.where}\n{r.message}\n{r.hint or ''}\n{r.lab or ''}") is None, r


# --- 1. key-shaped lab text --------------------------------------------------------------------

# (field, value): value is a function of the fresh ssh key's text (made per test).
KEY_CASES = {
    "age-key-in-notes": ("config.notes", lambda ssh: f"our embargo identity, for the record: {AGE_KEY}"),
    "age-key-lower-case-as-model-name": ("model.name", lambda ssh: AGE_KEY.lower()),
    "age-key-as-model-id": ("model.id", lambda ssh: AGE_KEY),
    "age-key-in-family": ("model.family", lambda ssh: f"fam {AGE_KEY}"),
    "age-key-in-harness-name": ("harness.name", lambda ssh: f"h {AGE_KEY}"),
    "age-key-in-judge": ("judge", lambda ssh: f"judge {AGE_KEY}"),
    "age-key-entity-encoded-in-notes": ("config.notes", lambda ssh: AGE_KEY.replace("-", "&#45;", 1)),
    "own-fresh-ssh-key-in-notes": ("config.notes", lambda ssh: f"signed with\n{ssh}"),
    "openssh-armour-as-model-name": ("model.name", lambda ssh: "-----BEGIN OPENSSH PRIVATE KEY-----"),
    "pem-armour-in-reasoning-effort": ("config.reasoning_effort", lambda ssh: "-----BEGIN RSA PRIVATE KEY-----"),
    "pem-armour-in-harness-version": ("harness.version", lambda ssh: "-----BEGIN PRIVATE KEY-----"),
}


@pytest.mark.parametrize("field,value", KEY_CASES.values(), ids=KEY_CASES.keys())
def test_key_shaped_lab_text_refuses_only_that_bundle(inst: Instance, tmp_path: Path, field, value) -> None:
    edit_manifest(inst.bundles[BETA], set_field(field, value(fresh_ssh_key(tmp_path))), inst.lab_keys["beta"])
    for identities in ([inst.identity], []):  # the authorised build and the public one alike
        report = run(inst, identities)
        assert_rejected(report, (MANIFEST_OF_BETA, KEY), publishes=[ACME] if identities else [])
        assert {ACME} <= {b.manifest.key for s in report.benchmarks for b in s.bundles}
        (rej,) = report.rejections
        assert field in rej.message and "rotate" in (rej.hint or "")
        no_key_in(report)


def test_the_formats_own_name_is_not_a_key(inst: Instance) -> None:
    # Control: the docs' way of naming the format ("AGE-SECRET-KEY-1...") and prose about keys.
    note = "sealed with age to the embargo key; identities look like AGE-SECRET-KEY-1... and private keys never leave the lab"
    edit_manifest(inst.bundles[BETA], set_field("config.notes", note), inst.lab_keys["beta"])
    assert run(inst).rejections == [] and run(inst, []).rejections == []


def test_key_shaped_folder_name_is_refused_and_never_quoted(inst: Instance) -> None:
    name = AGE_KEY.lower()[:56]  # a valid submission id, and key-shaped (20+ Bech32 characters)
    assert key_in_text(name) is not None
    inst.add_submission("beta", name, BETA_ROWS)
    for identities in ([inst.identity], []):
        report = run(inst, identities)
        assert outcome(report) == {("bundles/soohak/beta/(name withheld)", KEY)}
        no_key_in(report)
        assert {ACME, BETA} <= {b.manifest.key for s in report.benchmarks for b in s.bundles}


def test_public_and_authorised_builds_publish_without_the_bundle(inst: Instance, tmp_path: Path) -> None:
    """The whole build (render and output scan): before, the output scan failed it. Also a
    key-shaped folder maintainers withdrew: its tombstone's changelog entry withholds the name."""
    edit_manifest(inst.bundles[BETA], set_field("config.notes", f"key: {AGE_KEY}"), inst.lab_keys["beta"])
    keyed = AGE_KEY.lower()[:56]
    inst.add_submission("beta", keyed, BETA_ROWS)
    _tombstone(inst.root, f"beta/{keyed}")
    for identities, out in (([], tmp_path / "public"), ([inst.identity], tmp_path / "authorised")):
        report = build(inst.root, out, identities=identities, now=NOW)
        assert outcome(report) == {(MANIFEST_OF_BETA, KEY), ("bundles/soohak/beta/(name withheld)", "withdrawn")}
        assert "beta/(name withheld)" in (out / "changelog.html").read_text()
        assert (out / "index.html").is_file()
        for path in out.rglob("*"):
            if path.is_file():
                assert AGE_KEY.lower().encode() not in path.read_bytes().lower(), path


def test_bundle_verify_refuses_key_text(inst: Instance) -> None:
    edit_manifest(inst.bundles[BETA], set_field("judge", AGE_KEY), inst.lab_keys["beta"])
    result = CliRunner().invoke(main, ["bundle", "verify", "--root", str(inst.root), str(inst.bundles[BETA])])
    assert result.exit_code == 1 and "judge holds an age secret key" in result.output, result.output
    assert key_in_text(result.output) is None
    control = CliRunner().invoke(main, ["bundle", "verify", "--root", str(inst.root), str(inst.bundles[ACME])])
    assert control.exit_code == 0, control.output


def test_validate_refuses_key_text_in_a_new_bundle(repo: Repo) -> None:  # noqa: F811
    bundle = repo.inst.add_submission("acme", "run-3", VALID_ROWS)
    edit_manifest(bundle, set_field("config.notes", AGE_KEY), repo.inst.lab_keys["acme"])
    commit(repo)
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    assert [(p.path, p.reason) for p in report.problems] == [(f"{B}/acme/run-3/manifest.json", KEY)], report.markdown()
    assert report.status == FAILED and key_in_text(report.markdown()) is None


def test_validate_refuses_a_key_shaped_folder_without_repeating_it(repo: Repo) -> None:  # noqa: F811
    repo.inst.add_submission("acme", AGE_KEY.lower()[:56], VALID_ROWS)
    commit(repo)
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    assert [(p.path, p.reason) for p in report.problems] == [(f"{B}/acme/(name withheld)", KEY)], report.markdown()
    assert key_in_text(report.markdown()) is None and key_in_text(orjson.dumps(report.to_dict()).decode()) is None


# --- 2. embargoed text in a merged bundle's files ------------------------------------------------


def _tombstone(root: Path, key: str) -> Path:
    path = root / "bundles" / "soohak" / f"{key}.withdrawn"
    path.write_text(
        f"format: {TOMBSTONE_FORMAT}\nwithdrawn: 2026-11-28T00:00:00Z\ncreated: {NOW:%Y-%m-%dT%H:%M:%SZ}\n"
        "reason: its notes quote an embargoed item\n"
    )
    return path


def test_withdrawn_leaking_bundle_is_named_and_the_rest_publish(inst: Instance) -> None:
    # A tombstone keeps the bundle off the boards but not out of the checkout.
    edit_manifest(inst.bundles[BETA], set_field("config.notes", f"see {CANARY}"), inst.lab_keys["beta"])
    _tombstone(inst.root, BETA)
    report = run(inst)
    assert outcome(report) == {(where_of(BETA), "withdrawn"), (MANIFEST_OF_BETA, "embargoed-text")}
    assert ACME in published(report)
    assert all(CANARY.lower() not in (r.message + (r.hint or "")).lower() for r in report.rejections)


def test_leaking_file_beside_a_refused_manifest_is_named(inst: Instance) -> None:
    # Question text in a file of the folder no field carries: refused as plaintext and as a leak.
    (inst.bundles[BETA] / "notes.md").write_text("We found this one hard: " + ITEMS[2]["question"]["en"] + "\n")
    report = run(inst)
    notes = where_of(BETA, "notes.md")
    assert_rejected(report, (notes, "plaintext-in-bundle"), (notes, "embargoed-text"), publishes=[ACME])


def test_build_publishes_then_maintainers_remove_the_bundle(repo: Repo, tmp_path: Path) -> None:  # noqa: F811
    """The issue's route end to end, on a git repository: the leaking merged bundle is named
    and the site publishes; maintainers' removal (tombstone, then git rm) passes validate as
    a withdrawal, and the next build has nothing to name."""
    inst = repo.inst
    (repo.root / ".gitignore").write_text(gitignore_text())  # the build's staging stays out of commits
    edit_manifest(inst.bundles[BETA], set_field("config.notes", f"see {CANARY}"), inst.lab_keys["beta"])
    commit(repo, "beta's PR, merged")
    withdrawn = git(repo.root, "rev-parse", "HEAD")
    _tombstone(repo.root, BETA)
    commit(repo, "maintainers withdraw beta/run-2")

    report = build(repo.root, tmp_path / "site", identities=[inst.identity], now=NOW)
    assert (where_of(BETA), "withdrawn") in outcome(report) and (MANIFEST_OF_BETA, "embargoed-text") in outcome(report)
    assert (tmp_path / "site" / "index.html").is_file() and ACME in published(report)

    tombstoned = git(repo.root, "rev-parse", "HEAD")
    git(repo.root, "rm", "-q", "-r", where_of(BETA))
    commit(repo, "maintainers remove the leaking bundle")
    check = validate(repo.root, tombstoned, "HEAD", now=NOW)
    assert check.status == REVIEW, check.markdown()
    assert [(p.path, p.reason) for p in check.problems] == [(where_of(BETA), "withdrawal")]
    # Tombstone and removal in one maintainers' pull request: the same.
    together = validate(repo.root, withdrawn, "HEAD", now=NOW)
    assert together.status == REVIEW and {p.reason for p in together.problems} == {"withdrawal"}, together.markdown()

    report = build(repo.root, tmp_path / "site", identities=[inst.identity], now=NOW)
    # Nothing left on the boards to refuse, and the site publishes; the text is still in the
    # history every clone carries, so the checkout scan names it (never fatal: a lab's file),
    # with what maintainers do next (rewrite history).
    assert ACME in published(report)
    assert {(r.reason, r.where.split(" ")[0].startswith(where_of(BETA))) for r in report.rejections} == {("embargoed-text", True)}
    assert all("git history" in r.message and "filter-repo" in r.hint for r in report.rejections), report.rejections


def test_removing_a_bundle_without_a_tombstone_still_fails(repo: Repo) -> None:  # noqa: F811
    # Control: the tombstone is what keeps the name retired and the budget spent.
    git(repo.root, "rm", "-q", "-r", where_of(BETA))
    commit(repo)
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    assert report.status == FAILED and [(p.path, p.reason) for p in report.problems] == [(where_of(BETA), "removed-bundle")]


def test_the_maintainers_own_bytes_still_stop_the_build(repo: Repo, tmp_path: Path) -> None:  # noqa: F811
    # Control: a page of site_src quoting an item is the site's own doing.
    (repo.root / "site_src").mkdir(exist_ok=True)
    (repo.root / "site_src" / "about.md").write_text("# About\n\n" + ITEMS[2]["question"]["en"] + "\n")
    commit(repo)
    from builder.errors import LeakError

    with pytest.raises(LeakError) as err:
        build(repo.root, tmp_path / "site", identities=[repo.inst.identity], now=NOW)
    assert err.value.reason in ("leak", "plaintext-in-checkout")
    assert not (tmp_path / "site").exists()


# --- 3. plaintext results or items pushed --------------------------------------------------------

LEAK_HINT = ("filter-repo", "public now", "do not sign it into a bundle")


def _assert_leak_hint(hint: str | None) -> None:
    assert hint is not None and all(part in hint for part in LEAK_HINT), hint
    assert "manifest lists it" not in hint


def plaintext_results_beside(bundle: Path, _inst: Instance) -> str:
    (bundle / "results.jsonl").write_bytes(rows_bytes(VALID_ROWS))
    return "results.jsonl"


def plaintext_results_signed_in(bundle: Path, inst: Instance) -> str:
    # The lab "fixed" the unlisted-file refusal the old hint invited: plaintext as the sealed file.
    set_payload(bundle, "results.jsonl.age", rows_bytes(VALID_ROWS), inst.lab_keys[bundle.parent.name])
    return "results.jsonl.age"


def decrypted_items_beside(bundle: Path, _inst: Instance) -> str:
    (bundle / "items.jsonl").write_bytes(b"".join(orjson.dumps(item) + b"\n" for item in ITEMS))
    return "items.jsonl"


PLAINTEXT_CASES = {
    "results-jsonl-beside-the-bundle": plaintext_results_beside,
    "plaintext-signed-in-as-the-sealed-file": plaintext_results_signed_in,
    "decrypted-items-beside-the-bundle": decrypted_items_beside,
}


@pytest.mark.parametrize("case", PLAINTEXT_CASES, ids=PLAINTEXT_CASES)
def test_validate_refuses_plaintext_in_a_pr_as_a_leak(repo: Repo, case: str) -> None:  # noqa: F811
    bundle = repo.inst.add_submission("acme", "run-3", VALID_ROWS)
    name = PLAINTEXT_CASES[case](bundle, repo.inst)
    commit(repo)
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    assert [(p.path, p.reason) for p in report.problems] == [(f"{B}/acme/run-3/{name}", "plaintext-in-bundle")], report.markdown()
    _assert_leak_hint(report.problems[0].hint)


@pytest.mark.parametrize("path", ["results.jsonl", "bundles/soohak/acme/results.jsonl", "bundles/soohak/_dataset/test-1/items.jsonl"])
def test_validate_refuses_plaintext_names_anywhere_in_a_pr(repo: Repo, path: str) -> None:  # noqa: F811
    target = repo.root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(rows_bytes(VALID_ROWS))
    git(repo.root, "add", "-f", path)  # past the .gitignore, as a careless lab would
    commit(repo)
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    assert report.status == FAILED and (path, "plaintext-in-pr") in [(p.path, p.reason) for p in report.problems], report.markdown()
    _assert_leak_hint(next(p.hint for p in report.problems if p.reason == "plaintext-in-pr"))


def test_validate_passes_a_valid_bundle(repo: Repo) -> None:  # noqa: F811
    repo.inst.add_submission("acme", "run-3", VALID_ROWS)
    commit(repo)
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    assert report.status == PASSED, report.markdown()


@pytest.mark.parametrize("case", PLAINTEXT_CASES, ids=PLAINTEXT_CASES)
def test_merged_plaintext_refuses_only_that_bundle(inst: Instance, case: str) -> None:
    name = PLAINTEXT_CASES[case](inst.bundles[BETA], inst)
    report = run(inst)
    where = where_of(BETA, name)
    expected = {(where, "plaintext-in-bundle")}
    if case == "decrypted-items-beside-the-bundle":
        expected.add((where, "embargoed-text"))  # and the checkout scan names the leak
    assert outcome(report) == expected, [(r.where, r.reason) for r in report.rejections]
    assert ACME in published(report)
    _assert_leak_hint(next(r.hint for r in report.rejections if r.reason == "plaintext-in-bundle"))


def test_bundle_verify_says_it_leaked(inst: Instance) -> None:
    plaintext_results_beside(inst.bundles[BETA], inst)
    result = CliRunner().invoke(main, ["bundle", "verify", "--root", str(inst.root), str(inst.bundles[BETA])])
    assert result.exit_code == 1 and "is not sealed" in result.output and "filter-repo" in result.output, result.output
    shutil.rmtree(inst.bundles[BETA])


# --- 1b. key-shaped text in decrypted lab text a release publishes ------------------------------


def test_released_answers_and_transcripts_with_keys_refuse_only_their_own(tmp_path: Path) -> None:
    """After a partial release, answers (the results matrix) and opted-in transcripts (item
    pages) are published: key-shaped text there refuses the submission (an answer) or drops
    its transcripts (a transcript), and the site publishes. Before, the output scan failed it."""
    import gzip

    from builder.release.statement import Scope
    from tests.factory import results_for
    from tests.release.support import AFTER, released_instance

    inst = released_instance(tmp_path / "inst", scope=Scope(splits=("mini",)))
    mini = [it for it in inst.items if it["split"] == "mini"]
    ssh = fresh_ssh_key(tmp_path)
    lines = [
        orjson.dumps({"item": it["id"], "lang": "en", "sample": 0, "text": f"TMARK {ssh if i == 0 else 'answer 4'}"}) + b"\n"
        for i, it in enumerate(mini)
    ]
    inst.add_submission(
        "acme", "keyed-transcript", results_for(inst.items), publish_transcripts=True, transcripts=gzip.compress(b"".join(lines), mtime=0)
    )
    rows = results_for(inst.items)
    rows[0]["answer"] = AGE_KEY
    inst.add_submission("beta", "keyed-answer", rows)
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=AFTER)
    assert outcome(report) == {
        ("bundles/soohak/acme/keyed-transcript/transcripts.jsonl.gz.age", KEY),
        ("bundles/soohak/beta/keyed-answer/results.jsonl.age", KEY),
    }
    shown = set(report.benchmarks[0].results["submission"])
    assert {"acme/run-1", "beta/run-1", "acme/keyed-transcript"} <= shown and "beta/keyed-answer" not in shown
    assert (tmp_path / "site" / "index.html").is_file() and not (tmp_path / "site" / "data" / "soohak" / "transcripts").exists()
    for path in (tmp_path / "site").rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert b"TMARK" not in data and AGE_KEY.lower().encode() not in data.lower(), path


def test_bundle_create_refuses_key_text_in_run_yaml_before_sealing(inst: Instance, tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    results.write_bytes(rows_bytes(VALID_ROWS))
    describe = tmp_path / "run.yaml"
    body = (
        "model: {id: m, name: M, family: F, open_weights: false, params_b: null, active_params_b: null, training_cutoff: null, release_date: null}\n"
        "harness: {name: h, version: '1'}\n"
    )
    args = [
        "bundle",
        "create",
        "--root",
        str(inst.root),
        "--benchmark",
        "soohak",
        "--lab",
        "acme",
        "--submission",
        "run-7",
        "--results",
        str(results),
        "--describe",
        str(describe),
    ]
    describe.write_text(
        body + f"config: {{reasoning_effort: high, temperature: 1.0, max_output_tokens: 1000, tts: false, notes: '{AGE_KEY}'}}\n"
    )
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1 and "config.notes holds an age secret key" in result.output and "run.yaml" in result.output, result.output
    assert key_in_text(result.output) is None and not (inst.root / "bundles/soohak/acme/run-7").exists()
    describe.write_text(
        body
        + "config: {reasoning_effort: high, temperature: 1.0, max_output_tokens: 1000, tts: false, notes: 'AGE-SECRET-KEY-1... is how identities begin'}\n"
    )
    control = CliRunner().invoke(main, args)
    assert control.exit_code == 0, control.output
