"""Small, real instances for tests: real keys, real signatures, real age, on disk.

All keys here are throwaway test keys generated per test.
"""

from __future__ import annotations

import copy
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson

from builder.bundles.create import Description, create_bundle, sign_bundle
from builder.bundles.dataset import new_salt
from builder.bundles.dataset_create import sign_dataset, write_dataset
from builder.config import load_config
from builder.demo.instance import MKDOCS_YML, _config_text
from builder.trust.registry import load_registry
from builder.trust.registry_admin import add_lab, init_registry, sign_registry
from builder.trust.seal import Identity, generate_identity, identity_file_text, load_identity
from builder.trust.sshkeys import PrivateKey, generate_ed25519, load_private_key

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
VERSION = "test-1"

MODEL = {
    "id": "m-1",
    "name": "Model One",
    "family": "One",
    "open_weights": False,
    "params_b": None,
    "active_params_b": None,
    "training_cutoff": "2025-01-01",
    "release_date": "2025-06-01",
}
RUN = {"reasoning_effort": "high", "thinking": True, "temperature": 1.0, "max_output_tokens": 32768, "tts": False, "notes": ""}


def soohak_items(n_mini: int = 6, n_challenge: int = 6, n_refusal: int = 6) -> list[dict[str, Any]]:
    items = []
    for split, n in (("mini", n_mini), ("challenge", n_challenge), ("refusal", n_refusal)):
        for i in range(n):
            iid = f"{split[0]}{i:03d}"
            ill = split == "refusal"
            items.append(
                {
                    "id": iid,
                    "split": split,
                    "question": {
                        "en": f"Test question {iid}: compute the number of widgets in configuration {i} of the {split} family canary CANARY-{iid}-7f3a9c.",
                        "ko": f"시험 문제 {iid}: {split} 계열의 구성 {i}에서 위젯의 개수를 구하시오 CANARY-{iid}-7f3a9c.",
                    },
                    "answer": {"en": "ill-posed" if ill else str(10 + i), "ko": "ill-posed" if ill else str(10 + i)},
                    "answer_type": "ill_posed" if ill else "integer",
                    "msc": "11" if i % 2 else "05",
                    "problem_type": "olympiad" if i % 2 else "graduate",
                    "canary": f"CANARY-{iid}-7f3a9c",
                }
            )
    return items


def results_for(
    items: list[dict[str, Any]], correct: dict[str, list[bool]] | None = None, langs: tuple[str, ...] = ("en",)
) -> list[dict[str, Any]]:
    """Three samples per item; `correct[item]` gives the three verdicts (default all wrong)."""
    rows = []
    for lang in langs:
        for it in items:
            verdicts = (correct or {}).get(it["id"], [False, False, False])
            for s, ok in enumerate(verdicts):
                if it["answer_type"] == "ill_posed":
                    rows.append({"item": it["id"], "lang": lang, "sample": s, "answer": None if ok else "7", "correct": ok, "refused": ok})
                else:
                    gold = it["answer"]["en"]
                    rows.append(
                        {
                            "item": it["id"],
                            "lang": lang,
                            "sample": s,
                            "answer": gold if ok else str(int(gold) + 1),
                            "correct": ok,
                            "refused": False,
                            "output_tokens": 1000 + s,
                            "cost_usd": 0.01,
                        }
                    )
    return rows


def own_wrong_answers(rows: list[dict[str, Any]], run: str) -> list[dict[str, Any]]:
    """`rows` with every wrong integer answer moved by a run-specific offset: still wrong."""
    offset = zlib.crc32(run.encode()) % 9973 + 1
    out = []
    for r in rows:
        r = dict(r)  # never the caller's dicts: tests share row lists
        answer = r.get("answer")
        if not r.get("correct") and isinstance(answer, str) and answer.lstrip("-").isdigit():
            r["answer"] = str(int(answer) + offset * (1 if int(answer) >= 0 else -1))
        out.append(r)
    return out


@dataclass
class Instance:
    root: Path
    identity: Identity
    maintainer_keys: dict[str, PrivateKey]
    lab_keys: dict[str, PrivateKey]
    lab_key_paths: dict[str, Path]
    items: list[dict[str, Any]]
    bundles: dict[str, Path] = field(default_factory=dict)

    def add_submission(
        self,
        lab: str,
        submission: str,
        rows: list[dict[str, Any]],
        *,
        model: dict[str, Any] | None = None,
        sign_with: str | None = None,
        publish_results: bool = True,
        publish_transcripts: bool = False,
        transcripts: bytes | None = None,
        own_answers: bool = True,
        run: dict[str, Any] | None = None,
        harness: dict[str, str] | None = None,
        judge: str = "judge-1",
    ) -> Path:
        """Create and sign a bundle of `rows`. With `own_answers`, the run's wrong answers are
        spelled its own way, so that tests reusing one row set make distinct runs rather than
        the re-sealed clones the build refuses (builder.bundles.duplicates); scores are unchanged."""
        config = load_config(self.root / "leaderboards" / "soohak.yaml", self.root)
        if own_answers:
            rows = own_wrong_answers(rows, f"{lab}/{submission}")
        # Each run its own model id, each lab its own model name (the duplicate rule,
        # builder.bundles.duplicates): acme keeps "Model One", beta gets "Model One Beta".
        m = copy.deepcopy(
            model or dict(MODEL, id=f"m-{lab}-{submission}", name=MODEL["name"] + ("" if lab == "acme" else f" {lab.title()}"))
        )
        m.setdefault("name", submission)
        path = create_bundle(
            root=self.root,
            benchmark="soohak",
            lab=lab,
            submission=submission,
            results=b"".join(orjson.dumps(r) + b"\n" for r in rows),
            description=Description(
                model=m,
                config=dict(RUN, **(run or {})),
                harness=harness or {"name": "test-harness", "version": "1.0"},
                judge=judge,
                publish_results=publish_results,
                publish_transcripts=publish_transcripts,
            ),
            created=NOW,
            config=config,
            transcripts=transcripts,
        )
        sign_bundle(path, self.lab_keys[sign_with or lab])
        self.bundles[f"{lab}/{submission}"] = path
        return path


def forge_submission(
    inst: "Instance",
    lab: str,
    submission: str,
    rows: list[dict[str, Any]] | bytes,
    *,
    coverage: dict[str, Any] | None = None,
    recipients: list[str] | None = None,
    publish_results: bool = True,
) -> Path:
    """A bundle written without `bundle create`'s checks, as a lab's own tooling could:
    validly signed and sealed, holding any rows and any (or no) coverage summary."""
    import hashlib

    from builder.bundles.manifest import MANIFEST, RESULTS, SIGNATURE, dump_manifest, manifest_dict
    from builder.trust.seal import seal
    from builder.trust.sshsig import NS_BUNDLE, sign

    plain = rows if isinstance(rows, bytes) else b"".join(orjson.dumps(r) + b"\n" for r in rows)
    sealed = seal(plain, recipients or [inst.identity.recipient])
    path = inst.root / "bundles" / "soohak" / lab / submission
    path.mkdir(parents=True)
    (path / RESULTS).write_bytes(sealed)
    manifest = manifest_dict(
        benchmark="soohak",
        benchmark_version=VERSION,
        lab=lab,
        submission=submission,
        created=NOW,
        model=dict(MODEL, name=submission),
        config=dict(RUN),
        harness={"name": "own-tooling", "version": "1"},
        judge=None,
        files=[{"path": RESULTS, "sha256": hashlib.sha256(sealed).hexdigest(), "bytes": len(sealed), "sealed": True}],
        publish_results=publish_results,
        publish_transcripts=False,
        coverage=coverage,
    )
    (path / MANIFEST).write_bytes(dump_manifest(manifest))
    (path / SIGNATURE).write_text(sign(inst.lab_keys[lab], dump_manifest(manifest), NS_BUNDLE))
    inst.bundles[f"{lab}/{submission}"] = path
    return path


def make_instance(root: Path, labs: tuple[str, ...] = ("acme", "beta"), items: list[dict[str, Any]] | None = None,
                  lab_names: dict[str, str] | None = None) -> Instance:  # fmt: skip
    root.mkdir(parents=True, exist_ok=True)
    keydir = root.parent / f"{root.name}-keys"
    keydir.mkdir(exist_ok=True)

    def keypair(name: str) -> tuple[PrivateKey, Path]:
        private_bytes, _ = generate_ed25519(f"{name}@test")
        path = keydir / name
        path.write_bytes(private_bytes)
        path.chmod(0o600)
        return load_private_key(path), path

    maintainers = {m: keypair(m)[0] for m in ("m1", "m2", "m3")}
    init_registry(
        root, [{"id": m, "name": m.upper(), "key": k.public.openssh} for m, k in maintainers.items()], 2, NOW + timedelta(days=365)
    )
    sign_registry(root, maintainers["m1"])
    sign_registry(root, maintainers["m2"])
    lab_keys, lab_paths = {}, {}
    for lab in labs:
        lab_keys[lab], lab_paths[lab] = keypair(lab)
        add_lab(root, lab, (lab_names or {}).get(lab, lab.title() + " Lab"), [lab_keys[lab].public])
    sign_registry(root, maintainers["m1"])
    sign_registry(root, maintainers["m3"])

    # The authorised build's identity file holds the embargo key, then the private results key.
    embargo, private = generate_identity(), generate_identity()
    (keydir / "identity.txt").write_text(identity_file_text(embargo) + identity_file_text(private))
    identity = load_identity((keydir / "identity.txt").read_text())
    (root / "leaderboards").mkdir()
    (root / "leaderboards" / "soohak.yaml").write_text(_config_text("soohak", VERSION, embargo.recipient, private=private.recipient))
    (root / "mkdocs.yml").write_text(MKDOCS_YML.replace("Sealboard demo", "Sealboard test"))
    (root / "site_src").mkdir()
    (root / "site_src" / "index.md").write_text("# Test instance\n\n<!-- sealboard:benchmarks -->\n")

    items = items if items is not None else soohak_items()
    # The dataset bundle, signed by the maintainer threshold (m1 and m2 of 2-of-3).
    ds = write_dataset(root, load_config(root / "leaderboards" / "soohak.yaml", root), [dict(it, salt=new_salt()) for it in items], NOW)
    registry = load_registry(root, NOW)
    for m in ("m1", "m2"):
        sign_dataset(ds, maintainers[m], registry)
    return Instance(root=root, identity=identity, maintainer_keys=maintainers, lab_keys=lab_keys, lab_key_paths=lab_paths, items=items)
