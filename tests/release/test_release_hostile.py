"""Issue 22, the release: each route a maintainer key (or a former one) had to publish more
than one statement signed, each asserting the exact refusal, with a control each.

Routes: statements combined as a union; the identity published whatever the scope says;
former maintainers back-dating a statement; a registry change committed with a clock ahead;
removing a maintainer un-releasing a benchmark; a changed commitment after publication;
`verify --site` ignoring items.csv and the item pages; junk statements hiding a valid one;
a scope covering no item reported "partly released".
"""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
from datetime import timedelta

import orjson
import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.config import load_config, load_configs
from builder.errors import ReleaseError
from builder.pipeline.build import build
from builder.release.admin import flip, sign_statement
from builder.release.apply import refuse_empty_scopes
from builder.release.check import verify_site
from builder.release.identity import publish_identity
from builder.release.statement import Publish, Scope, release_dir
from builder.release.status import EMBARGOED, PARTLY, RELEASED, release_states
from builder.trust.registry import load_registry
from builder.trust.registry_admin import remove_maintainer, sign_registry
from tests.factory import NOW, make_instance, results_for
from tests.pipeline.test_admission import commit
from tests.release.support import AFTER, T, distinct_items, released_instance, write_statement

pytestmark = pytest.mark.slow  # builds sites

MERGED = NOW + timedelta(hours=1)
ALL = Publish()
AGGREGATES = Publish(items=False, results=False, transcripts=False)


def states(root, clock=AFTER):
    return release_states(root, load_configs(root), load_registry(root, NOW), clock)


def statement(inst, name, scope, publish, not_before=T, signers=("m1", "m2")):
    flip(inst.root, "soohak", not_before, scope, publish, NOW, name=name)
    for m in signers:
        sign_statement(inst.root, "soohak", inst.maintainer_keys[m], name)


def instance(tmp_path, *statements):
    inst = make_instance(tmp_path / "inst", items=distinct_items())
    inst.add_submission("acme", "run-1", results_for(inst.items, {it["id"]: [True, False, True] for it in inst.items}))
    for args in statements:
        statement(inst, *args)
    return inst


def ids(inst, split=None):
    return {it["id"] for it in inst.items if split in (None, it["split"])}


def drop(inst, name):
    for suffix in ("", ".sig"):
        (release_dir(inst.root, "soohak") / f"{name}.yaml{suffix}").unlink()


def git_instance(tmp_path):
    inst = released_instance(tmp_path / "inst", signers=("m1", "m2"))
    subprocess.run(["git", "init", "-q", "-b", "main", str(inst.root)], check=True)
    commit(inst.root, "instance", MERGED)
    return inst


def remove(inst, maintainer, signers, threshold=None):
    remove_maintainer(inst.root, maintainer, threshold)
    for m in signers:
        sign_registry(inst.root, inst.maintainer_keys[m])


# -- statements never combine -------------------------------------------------------------


def test_union_aggregates_everywhere_plus_one_split_with_everything_publishes_that_split_only(tmp_path):
    # The attack: the whole version as aggregates only, then the refusal split with everything.
    inst = instance(tmp_path, ("a-whole", Scope(), AGGREGATES), ("b-refusal", Scope(splits=("refusal",)), ALL, T + timedelta(minutes=1)))
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=AFTER)
    state = report.benchmarks[0]
    assert state.status == "released"
    data = tmp_path / "site" / "data" / "soohak"
    published = {orjson.loads(line)["id"] for line in (data / "items.jsonl").read_bytes().splitlines()}
    assert published == ids(inst, "refusal")  # 6 items, not 18
    matrix = list(csv.DictReader(io.StringIO((data / "matrix.csv").read_text())))
    assert {r["item"] for r in matrix} == ids(inst, "refusal")
    assert len(matrix) == 6 * 3  # acme's 3 samples of each refusal item: 18 rows, not 54
    assert {e[0] for e in state.embargoed_text} == ids(inst) - ids(inst, "refusal")


def test_union_with_equal_not_before_takes_the_statement_publishing_least(tmp_path):
    inst = instance(tmp_path, ("a-whole", Scope(), AGGREGATES), ("b-refusal", Scope(splits=("refusal",)), ALL))
    state = states(inst.root)["soohak"]
    assert state.state == RELEASED
    assert set(state.item_publish(inst.items).values()) == {AGGREGATES}


def test_control_one_whole_statement_publishes_every_item_and_row(tmp_path):
    inst = instance(tmp_path, ("r1", Scope(), ALL))
    state = states(inst.root)["soohak"]
    assert state.item_publish(inst.items) == {i: ALL for i in ids(inst)}


def test_a_newer_narrower_statement_narrows_its_split_only(tmp_path):
    inst = instance(tmp_path, ("a-whole", Scope(), ALL), ("b-mini", Scope(splits=("mini",)), AGGREGATES, T + timedelta(minutes=1)))
    per_item = states(inst.root)["soohak"].item_publish(inst.items)
    assert {i for i, p in per_item.items() if p == AGGREGATES} == ids(inst, "mini")
    assert {i for i, p in per_item.items() if p == ALL} == ids(inst) - ids(inst, "mini")


# -- the identity is published only when everything it opens is authorised ------------------


def identity_due(root):
    r = CliRunner().invoke(main, ["release", "identity-due", "--root", str(root), "--as-of", "2027-01-15T10:00:00Z"])
    assert r.exit_code == 0, r.output
    return r.output.strip()


@pytest.mark.parametrize(
    "publish",
    [
        Publish(items=False, results=False, transcripts=False),
        Publish(items=True, results=False, transcripts=False),
        Publish(items=True, results=True, transcripts=False),
    ],
    ids=["no-items", "no-results", "no-transcripts"],
)
def test_full_release_publishing_less_keeps_the_identity_private(tmp_path, publish):
    inst = instance(tmp_path, ("r1", Scope(), publish))
    state = states(inst.root)["soohak"]
    assert state.state == RELEASED and not state.identity_authorised
    with pytest.raises(ReleaseError) as exc:
        publish_identity(inst.root, load_config(inst.root / "leaderboards" / "soohak.yaml", inst.root), state, [inst.identity])
    assert exc.value.reason == "identity-not-authorised"
    assert identity_due(inst.root) == ""


def test_a_newer_narrowing_statement_keeps_the_identity_private(tmp_path):
    inst = instance(tmp_path, ("a-whole", Scope(), ALL), ("b-mini", Scope(splits=("mini",)), AGGREGATES, T + timedelta(minutes=1)))
    assert not states(inst.root)["soohak"].identity_authorised
    assert identity_due(inst.root) == ""


def test_control_full_release_of_everything_makes_the_identity_due(tmp_path):
    inst = instance(tmp_path, ("r1", Scope(), ALL))
    assert states(inst.root)["soohak"].identity_authorised
    assert identity_due(inst.root) == "soohak"


def test_release_without_the_identity_publishes_the_opened_files(tmp_path):
    # items and results, no transcripts: the identity stays private, items.jsonl and the matrix are the release
    inst = instance(tmp_path, ("r1", Scope(), Publish(items=True, results=True, transcripts=False)))
    build(inst.root, tmp_path / "site", identities=[inst.identity], now=AFTER)
    data = tmp_path / "site" / "data" / "soohak"
    assert len((data / "items.jsonl").read_bytes().splitlines()) == 18
    assert len(list(csv.DictReader(io.StringIO((data / "matrix.csv").read_text())))) == 18 * 3
    assert not (inst.root / "keys" / "released").exists()


# -- signatures count at git admission ---------------------------------------------------


def test_former_maintainers_back_dating_a_statement_count_zero(tmp_path):
    inst = git_instance(tmp_path)
    drop(inst, "r1")
    remove(inst, "m2", ("m1", "m3"))  # v0003: m1, m3
    remove(inst, "m1", ("m1", "m3"), threshold=1)  # v0004: m3 alone
    commit(inst.root, "m1 and m2 leave", T - timedelta(days=10))
    # both former maintainers sign a statement naming v0002 with a not_before before they left
    write_statement(inst, "r2", registry_version=2, signers=("m1", "m2"), not_before=T - timedelta(days=20))
    commit(inst.root, "back-dated statement", T - timedelta(days=5))
    state = states(inst.root)["soohak"]
    v = state.verdicts[0]
    assert state.state == EMBARGOED
    assert (v.state, v.reason) == ("unsigned", "removed-signer")
    assert "0 of 1 signatures" in v.message


def test_control_the_same_statement_admitted_before_they_left_stands(tmp_path):
    inst = git_instance(tmp_path)
    drop(inst, "r1")
    write_statement(inst, "r2", registry_version=2, signers=("m1", "m2"), not_before=T - timedelta(days=20))
    commit(inst.root, "statement", T - timedelta(days=15))
    remove(inst, "m2", ("m1", "m3"))
    remove(inst, "m1", ("m1", "m3"), threshold=1)
    commit(inst.root, "m1 and m2 leave", T - timedelta(days=10))
    state = states(inst.root)["soohak"]
    assert state.state == RELEASED, state.verdicts[0].message
    assert state.verdicts[0].signers == ("m1", "m2")


def test_registry_change_committed_with_a_clock_ahead_is_refused_as_a_date(tmp_path):
    inst = git_instance(tmp_path)
    drop(inst, "r1")
    remove(inst, "m2", ("m1", "m3"))
    commit(inst.root, "m2 leaves, committed a year ahead", AFTER + timedelta(days=365))
    write_statement(inst, "r2", registry_version=2, signers=("m1", "m2"))
    commit(inst.root, "statement by m1 and the removed m2", T)
    v = states(inst.root)["soohak"].verdicts[0]
    assert (v.state, v.reason) == ("unsigned", "registry-dated-ahead")
    assert "registry v0003 was committed after the build's clock" in v.message


def test_control_current_maintainers_still_release_despite_a_registry_dated_ahead(tmp_path):
    inst = git_instance(tmp_path)
    drop(inst, "r1")
    remove(inst, "m2", ("m1", "m3"))
    commit(inst.root, "m2 leaves, committed a year ahead", AFTER + timedelta(days=365))
    write_statement(inst, "r2", registry_version=3, signers=("m1", "m3"))
    commit(inst.root, "statement by m1 and m3", T)
    assert states(inst.root)["soohak"].state == RELEASED


# -- removing a maintainer never un-releases ------------------------------------------------


def test_removing_a_signer_of_the_dataset_and_statement_keeps_the_release(tmp_path):
    inst = git_instance(tmp_path)  # dataset and statement signed by m1 and m2
    remove(inst, "m2", ("m1", "m3"))
    commit(inst.root, "m2 leaves", T + timedelta(days=1))
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=T + timedelta(days=2))
    state = report.benchmarks[0]
    assert state.status == "released", [r.reason for r in report.rejections]
    assert len(state.released_items) == 18 and state.boards
    assert not [r for r in report.rejections if r.lab == "_dataset"]


def test_control_without_history_the_dataset_is_judged_by_todays_registry(tmp_path):
    # no git: nothing dates the dataset, so today's registry judges it (the documented fallback)
    inst = released_instance(tmp_path / "inst", signers=("m1", "m3"))
    remove(inst, "m2", ("m1", "m3"))
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=AFTER)
    assert report.benchmarks[0].status == "sealed"
    assert ("signer-not-maintainer", "_dataset") in {(r.reason, r.lab) for r in report.rejections}


# -- a changed commitment after publication --------------------------------------------------


def test_a_dataset_re_signed_with_a_changed_item_is_refused(tmp_path):
    from builder.bundles.dataset import new_salt
    from builder.bundles.dataset_create import sign_dataset, write_dataset

    inst = git_instance(tmp_path)
    items = [dict(it, salt=new_salt()) for it in inst.items]
    items[0]["answer"] = {lang: "a different gold answer" for lang in items[0]["answer"]}
    ds_dir = inst.root / "bundles" / "soohak" / "_dataset" / "test-1"
    shutil.rmtree(ds_dir)
    ds = write_dataset(inst.root, load_config(inst.root / "leaderboards" / "soohak.yaml", inst.root), items, NOW)
    for m in ("m1", "m2"):
        sign_dataset(ds, inst.maintainer_keys[m], load_registry(inst.root, NOW))
    drop(inst, "r1")
    statement(inst, "r2", Scope(), ALL)  # the threshold re-signs the release of the new digest
    commit(inst.root, "dataset test-1 changed", T - timedelta(days=1))
    v = states(inst.root)["soohak"].verdicts[0]
    assert (v.state, v.reason) == ("invalid", "commitment-changed")
    r = CliRunner().invoke(main, ["release", "verify", "--root", str(inst.root)])
    assert r.exit_code != 0 and "OK" not in r.output.split()
    assert "changes the commitment to item" in r.output, r.output
    from builder.release.check import verify_repo

    with pytest.raises(ReleaseError) as exc:
        verify_repo(inst.root, AFTER)
    assert (exc.value.reason, exc.value.where) == ("commitment-changed", "bundles/soohak/_dataset/test-1/manifest.json")


def test_control_an_unchanged_dataset_with_history_releases(tmp_path):
    inst = git_instance(tmp_path)
    assert states(inst.root)["soohak"].state == RELEASED


# -- verify --site checks every published copy -------------------------------------------------


@pytest.fixture(scope="module")
def released_site(tmp_path_factory):
    base = tmp_path_factory.mktemp("site")
    inst = released_instance(base / "inst")
    subprocess.run(["git", "init", "-q", "-b", "main", str(inst.root)], check=True)
    commit(inst.root, "instance", MERGED)
    build(inst.root, base / "site", identities=[inst.identity], now=AFTER)
    return inst, base / "site"


def tampered(released_site, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(released_site[1], site)
    return site


def test_control_untouched_site_verifies_every_copy(released_site):
    inst, site = released_site
    lines = verify_site(site, inst.root)
    assert lines == [
        "soohak: released: 18 item(s) match their commitments; items.csv and 18 item page(s) agree; matrix 108 row(s) on published items only"
    ]


def test_items_csv_with_a_changed_question_is_refused(released_site, tmp_path):
    site = tampered(released_site, tmp_path)
    path = site / "data" / "soohak" / "items.csv"
    lines = path.read_text().splitlines()
    item = sorted(released_site[0].items, key=lambda i: i["id"])[2]
    question = item["question"]["en"]
    lines[3] = lines[3].replace(question, "A different question entirely")
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReleaseError) as exc:
        verify_site(site)
    assert (exc.value.reason, exc.value.where, exc.value.line) == ("copy-mismatch", "data/soohak/items.csv", 4)


def test_item_page_with_a_changed_gold_answer_is_refused(released_site, tmp_path):
    site = tampered(released_site, tmp_path)
    item = sorted(released_site[0].items, key=lambda i: i["id"])[0]
    page = site / "soohak" / "items" / f"{item['id']}.html"
    html = page.read_text()
    answer = item["answer"]["en"]
    marker = f'<code class="sb-gold" data-lang="en">{answer}</code>'
    assert marker in html
    page.write_text(html.replace(marker, '<code class="sb-gold" data-lang="en">999</code>'))
    with pytest.raises(ReleaseError) as exc:
        verify_site(site)
    assert (exc.value.reason, exc.value.where) == ("copy-mismatch", f"soohak/items/{item['id']}.html")


def test_a_page_of_an_item_not_published_is_refused(released_site, tmp_path):
    site = tampered(released_site, tmp_path)
    first = sorted((site / "soohak" / "items").glob("*.html"))[0]
    shutil.copy(first, first.with_name("ghost-item.html"))
    with pytest.raises(ReleaseError) as exc:
        verify_site(site)
    assert (exc.value.reason, exc.value.where) == ("unreleased-item", "soohak/items/ghost-item.html")


def test_site_whose_items_and_commitments_changed_together_is_refused_against_the_repository(released_site, tmp_path):
    from builder.bundles.dataset import commitment

    site = tampered(released_site, tmp_path)
    data = site / "data" / "soohak"
    items = [orjson.loads(line) for line in (data / "items.jsonl").read_bytes().splitlines()]
    items[0]["answer"] = {lang: "changed" for lang in items[0]["answer"]}
    commitments = orjson.loads((data / "commitments.json").read_bytes())
    commitments["commitments"][items[0]["id"]] = commitment(items[0])
    (data / "commitments.json").write_bytes(orjson.dumps(commitments))
    (data / "items.jsonl").write_bytes(b"".join(orjson.dumps(it, option=orjson.OPT_SORT_KEYS) + b"\n" for it in items))
    from builder.release.outputs import items_csv

    (data / "items.csv").write_bytes(items_csv(items))
    with pytest.raises(ReleaseError) as exc:
        verify_site(site, released_site[0].root)
    assert (exc.value.reason, exc.value.where) == ("commitment-changed", "data/soohak/commitments.json")


# -- junk statements, empty scopes ----------------------------------------------------------------


def test_256_junk_statements_are_refused_one_by_one_and_hide_no_valid_one(tmp_path):
    inst = released_instance(tmp_path / "inst", name="zz-valid")
    directory = release_dir(inst.root, "soohak")
    for i in range(256):
        (directory / f"a{i:03d}.yaml").write_text(f"format: sealboard-release/1\njunk: {i}\n")
    state = states(inst.root)["soohak"]
    assert state.state == RELEASED
    junk = [v for v in state.verdicts if "/a" in v.path]
    assert len(junk) == 256 and {v.state for v in junk} == {"invalid"}
    assert [v.path for v in state.effective] == ["leaderboards/soohak.release/zz-valid.yaml"]


def test_control_junk_alone_releases_nothing(tmp_path):
    inst = make_instance(tmp_path / "inst", items=distinct_items())
    directory = release_dir(inst.root, "soohak")
    directory.mkdir(parents=True)
    for i in range(3):
        (directory / f"a{i:03d}.yaml").write_text(f"format: sealboard-release/1\njunk: {i}\n")
    assert states(inst.root)["soohak"].state == EMBARGOED


def test_a_scope_covering_no_item_is_refused_not_partly_released(tmp_path):
    inst = instance(tmp_path, ("r1", Scope(editions_through="2026-01"), ALL))  # the items have no edition
    before = states(inst.root)["soohak"]
    # the dataset manifest counts items per edition (none here): known with no secret (issue 44)
    assert before.state == EMBARGOED and (before.verdicts[0].state, before.verdicts[0].reason) == ("invalid", "empty-scope")
    after = refuse_empty_scopes(before, inst.items)
    assert after.state == EMBARGOED
    assert (after.verdicts[0].state, after.verdicts[0].reason) == ("invalid", "empty-scope")


def test_control_a_split_scope_covering_items_stays_partly_released(tmp_path):
    inst = instance(tmp_path, ("r1", Scope(splits=("mini",)), ALL))
    after = refuse_empty_scopes(states(inst.root)["soohak"], inst.items)
    assert after.state == PARTLY and after.verdicts[0].state == "effective"
