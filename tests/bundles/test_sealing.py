"""Which key each bundle file is sealed to (builder.bundles.sealing), and what the build
does with a file sealed to the wrong one."""

from __future__ import annotations

import gzip

import orjson
import pytest

from builder.bundles.create import Description, create_bundle
from builder.config import load_config
from builder.errors import BuilderError, ConfigError
from builder.pipeline.build import build
from builder.trust.seal import unseal
from tests.factory import MODEL, NOW, RUN, forge_submission, make_instance, results_for


@pytest.fixture(scope="module")
def inst(tmp_path_factory):
    inst = make_instance(tmp_path_factory.mktemp("sealing") / "inst")
    inst.add_submission("acme", "public", results_for(inst.items))
    inst.add_submission(
        "beta",
        "private",
        results_for(inst.items),
        publish_results=False,
        transcripts=gzip.compress(b'{"item": "m000", "lang": "en", "sample": 0, "text": "t"}\n'),
    )
    return inst


def _keys(inst):
    config = load_config(inst.root / "leaderboards" / "soohak.yaml", inst.root)
    return config, inst.identity.select(config.embargo_recipient), inst.identity.select(config.private_recipient)


def _opens(data: bytes, identity) -> bool:
    try:
        unseal(data, [identity], "t")
    except BuilderError as exc:
        assert exc.reason == "no-matching-recipient"
        return False
    return True


def test_create_seals_each_file_to_the_key_its_opt_in_names(inst):
    _, embargo, private = _keys(inst)
    public = (inst.bundles["acme/public"] / "results.jsonl.age").read_bytes()
    assert (_opens(public, embargo), _opens(public, private)) == (True, False)
    for name in ("results.jsonl.age", "transcripts.jsonl.gz.age"):
        sealed = (inst.bundles["beta/private"] / name).read_bytes()
        assert (_opens(sealed, embargo), _opens(sealed, private)) == (False, True), name


def test_authorised_build_scores_private_results(inst, tmp_path):
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=NOW, render=False)
    assert report.rejections == []
    assert set(report.benchmarks[0].results["submission"]) == {"acme/public", "beta/private"}


def test_build_without_the_private_key_leaves_private_results_off_and_says_why(inst, tmp_path):
    config, embargo, _ = _keys(inst)
    report = build(inst.root, tmp_path / "site", identities=[embargo], now=NOW, render=False)
    assert set(report.benchmarks[0].results["submission"]) == {"acme/public"}
    [r] = report.rejections
    assert (r.reason, r.where) == ("sealed-private", "bundles/soohak/beta/private/results.jsonl.age")
    assert "sealed to the private results key of soohak (publish_on_release.results: false)" in r.message
    assert "not reproducible without it" in r.message


def test_private_results_that_open_with_the_embargo_key_are_refused(tmp_path):
    inst = make_instance(tmp_path / "inst")
    config, _, _ = _keys(inst)
    # A lab's own tooling sealed results it keeps private to the embargo key too: they
    # would become public the day a full release publishes the embargo identity.
    forge_submission(
        inst,
        "acme",
        "leaky",
        results_for(inst.items),
        publish_results=False,
        recipients=[config.private_recipient, config.embargo_recipient],
    )
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=NOW, render=False)
    [r] = report.rejections
    assert r.reason == "private-opens-with-embargo-key"
    assert r.message.startswith(
        "bundles/soohak/acme/leaky/results.jsonl.age: publish_on_release.results is false but results.jsonl.age opens with the embargo key of soohak"
    )


def test_opted_in_results_sealed_to_the_private_key_only_are_refused(tmp_path):
    inst = make_instance(tmp_path / "inst")
    config, _, _ = _keys(inst)
    forge_submission(inst, "acme", "unreproducible", results_for(inst.items), recipients=[config.private_recipient])
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=NOW, render=False)
    [r] = report.rejections
    assert r.reason == "no-matching-recipient"
    assert "publish_on_release.results is true but results.jsonl.age does not open with the embargo key of soohak" in r.message


def _describe(publish_results: bool) -> Description:
    return Description(
        model=dict(MODEL),
        config=dict(RUN),
        harness={"name": "h", "version": "1"},
        judge="j",
        publish_results=publish_results,
        publish_transcripts=False,
    )


def test_private_results_need_a_private_recipient(tmp_path):
    inst = make_instance(tmp_path / "inst")
    path = inst.root / "leaderboards" / "soohak.yaml"
    path.write_text("".join(line for line in path.read_text().splitlines(keepends=True) if not line.startswith("private_recipient:")))
    config = load_config(path, inst.root)
    rows = b"".join(orjson.dumps(r) + b"\n" for r in results_for(inst.items))
    with pytest.raises(ConfigError) as exc:
        create_bundle(
            root=inst.root,
            benchmark="soohak",
            lab="acme",
            submission="s",
            results=rows,
            description=_describe(False),
            created=NOW,
            config=config,
            maintainer_recipients=(inst.identity.recipient,),
        )
    assert exc.value.reason == "no-private-recipient"
    # opted-in results need only the embargo key
    create_bundle(
        root=inst.root,
        benchmark="soohak",
        lab="acme",
        submission="s",
        results=rows,
        description=_describe(True),
        created=NOW,
        config=config,
    )


def test_private_recipient_must_not_be_the_embargo_key(tmp_path):
    inst = make_instance(tmp_path / "inst")
    path = inst.root / "leaderboards" / "soohak.yaml"
    config = load_config(path, inst.root)
    path.write_text(path.read_text().replace(config.private_recipient, config.embargo_recipient))
    with pytest.raises(ConfigError) as exc:
        load_config(path, inst.root)
    assert "private_recipient: is the embargo recipient" in exc.value.message


def test_private_results_on_a_benchmark_without_a_private_key_say_so(tmp_path):
    from builder.trust.seal import generate_identity

    inst = make_instance(tmp_path / "inst")
    path = inst.root / "leaderboards" / "soohak.yaml"
    path.write_text("".join(line for line in path.read_text().splitlines(keepends=True) if not line.startswith("private_recipient:")))
    forge_submission(inst, "acme", "orphan", results_for(inst.items), publish_results=False, recipients=[generate_identity().recipient])
    report = build(inst.root, tmp_path / "site", identities=[inst.identity], now=NOW, render=False)
    [r] = report.rejections
    assert r.reason == "sealed-private"
    assert "is kept private (publish_on_release.results: false) but soohak has no private results key to open it with" in r.message


def test_create_says_which_key_each_file_went_to(tmp_path):
    from builder.bundles.manifest import TRANSCRIPTS
    from builder.bundles.sealing import recipients_for, sealed_to

    inst = make_instance(tmp_path / "inst")
    path = inst.root / "leaderboards" / "soohak.yaml"
    config = load_config(path, inst.root)
    assert sealed_to(config, True) == "sealed to the embargo key: public after a full release"
    assert sealed_to(config, False) == "sealed to the private results key: never published"
    # Without a private key, private transcripts go to the maintainers alone: the sentence says so.
    path.write_text("".join(line for line in path.read_text().splitlines(keepends=True) if not line.startswith("private_recipient:")))
    bare = load_config(path, inst.root)
    assert recipients_for(bare, False, ["age1maintainer"], TRANSCRIPTS) == ["age1maintainer"]
    assert sealed_to(bare, False) == "sealed to the maintainers' keys only: never published"
