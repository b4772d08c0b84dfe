"""The authorised build refuses site config or sources that could read outside the site
(security invariant 6), whoever merged them; withdrawn and over-budget bundles stay out.

Each site case is merged straight into the instance (as if a maintainer had merged it),
then the real authorised build runs (with rendering): it must stop with UnsafeSiteError
before reading any bundle, listing exactly the expected (where, reason) findings, and
nothing the hostile config asked for may have happened.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from builder.demo.instance import DEMO_EMBARGO
from builder.render.site_guard import UnsafeSiteError, check_mkdocs_config
from hostile.support import ACME, BENCH, BETA, VALID_ROWS, Instance, outcome, run, where_of


def append(inst: Instance, rel: str, text: str) -> None:
    path = inst.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text((path.read_text() if path.exists() else "") + text)


def hooks_write_a_file(inst: Instance, marker: Path) -> None:
    append(inst, "evil_hook.py", f"import os\ndef on_config(config):\n    open({str(marker)!r}, 'w').write(os.environ.get('SEALBOARD_IDENTITY', 'x'))\n")
    append(inst, "mkdocs.yml", "hooks:\n  - evil_hook.py\n")


def snippets_proc_environ(inst: Instance, marker: Path) -> None:
    append(inst, "mkdocs.yml", "  - pymdownx.snippets:\n      base_path: [/proc/self]\n      check_paths: true\n")
    append(inst, "site_src/env.md", '--8<-- "environ"\n')


def snippets_default_settings(inst: Instance, marker: Path) -> None:
    append(inst, "mkdocs.yml", "  - pymdownx.snippets\n")


def python_tag(inst: Instance, marker: Path) -> None:
    append(inst, "mkdocs.yml", f"extra:\n  x: !!python/object/apply:os.system ['touch {marker}']\n")


def env_tag(inst: Instance, marker: Path) -> None:
    append(inst, "mkdocs.yml", "extra:\n  secret: !ENV SEALBOARD_IDENTITY\n")


def inherit(inst: Instance, marker: Path) -> None:
    append(inst, "mkdocs.yml", "INHERIT: ../../etc/mkdocs.yml\n")


def plugin_off_the_list(inst: Instance, marker: Path) -> None:
    text = (inst.root / "mkdocs.yml").read_text().replace("  - sealboard\n", "  - sealboard\n  - macros\n", 1)
    (inst.root / "mkdocs.yml").write_text(text)


def custom_dir_outside(inst: Instance, marker: Path) -> None:
    text = (inst.root / "mkdocs.yml").read_text().replace("  name: material\n", "  name: material\n  custom_dir: /etc\n", 1)
    (inst.root / "mkdocs.yml").write_text(text)


def custom_dir_with_link(inst: Instance, marker: Path) -> None:
    text = (inst.root / "mkdocs.yml").read_text().replace("  name: material\n", "  name: material\n  custom_dir: overrides\n", 1)
    (inst.root / "mkdocs.yml").write_text(text)
    (inst.root / "overrides").mkdir()
    os.symlink("/etc/hostname", inst.root / "overrides" / "main.html")


def symlink_in_site_src(inst: Instance, marker: Path) -> None:
    os.symlink("/proc/self/environ", inst.root / "site_src" / "env.md")


def shadows_generated_data(inst: Instance, marker: Path) -> None:
    append(inst, f"site_src/data/{BENCH}/overall.json", '{"rows": []}')


def bundles_gitattributes(inst: Instance, marker: Path) -> None:
    append(inst, "bundles/.gitattributes", "* text eol=crlf\n")


def root_gitattributes_filter(inst: Instance, marker: Path) -> None:
    append(inst, ".gitattributes", "*.json filter=lfs diff=lfs merge=lfs -text\n")


SITE_CASES: dict[str, tuple[Callable[[Instance, Path], None], list[tuple[str, str]]]] = {
    "site/mkdocs-hooks-write-a-file": (hooks_write_a_file, [("mkdocs.yml", "mkdocs-hooks")]),
    "site/snippets-proc-self-environ": (snippets_proc_environ, [("mkdocs.yml", "mkdocs-snippets")]),
    "site/snippets-any-settings": (snippets_default_settings, [("mkdocs.yml", "mkdocs-snippets")]),
    "site/python-object-apply-tag": (python_tag, [("mkdocs.yml", "mkdocs-yaml-tag")]),
    "site/env-tag-copies-the-secret": (env_tag, [("mkdocs.yml", "mkdocs-yaml-tag")]),
    "site/inherit": (inherit, [("mkdocs.yml", "mkdocs-inherit")]),
    "site/plugin-not-on-allow-list": (plugin_off_the_list, [("mkdocs.yml", "plugin-not-allowed")]),
    "site/custom-dir-outside": (custom_dir_outside, [("mkdocs.yml", "mkdocs-path")]),
    "site/custom-dir-holds-a-link": (custom_dir_with_link, [("overrides/main.html", "site-symlink")]),
    "site/symlink-in-site-src": (symlink_in_site_src, [("site_src/env.md", "site-symlink")]),
    "site/site-src-data-shadows-a-board": (shadows_generated_data, [(f"site_src/data/{BENCH}/overall.json", "shadows-generated")]),
    "site/bundles-gitattributes-eol-crlf": (bundles_gitattributes, [("bundles/.gitattributes", "gitattributes")]),
    "site/root-gitattributes-filter": (root_gitattributes_filter, [(".gitattributes", "gitattributes")]),
}


@pytest.mark.parametrize("case", list(SITE_CASES), ids=list(SITE_CASES))
def test_build_refuses_unsafe_site(case: str, inst: Instance, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from builder.pipeline.build import build

    mutate, expected = SITE_CASES[case]
    marker = tmp_path / "pwned"
    mutate(inst, marker)
    monkeypatch.setenv("SEALBOARD_IDENTITY", "AGE-SECRET-KEY-1NOTTHEREALONE")
    out = tmp_path / "site"
    with pytest.raises(UnsafeSiteError) as caught:
        build(inst.root, out, identities=[inst.identity])
    assert caught.value.reason == "unsafe-site"
    assert sorted((f.where, f.reason) for f in caught.value.findings) == sorted(expected), str(caught.value)
    assert not marker.exists() and not out.exists()
    assert not (inst.root / ".sealboard").exists(), "refused before anything was staged"


def test_shipped_configs_are_safe() -> None:
    from builder.demo.instance import MKDOCS_YML

    root = Path(__file__).resolve().parents[2]
    assert check_mkdocs_config((root / "mkdocs.yml").read_bytes()) == []
    assert check_mkdocs_config(MKDOCS_YML.encode()) == []


# --- tombstones and the budget, in the build -----------------------------------------------


def test_build_honours_tombstone(inst: Instance) -> None:
    (inst.root / "bundles" / BENCH / f"{ACME}.withdrawn").write_text(
        "format: sealboard-withdrawn/1\nwithdrawn: 2026-11-20T00:00:00Z\ncreated: 2026-11-01T00:00:00Z\nreason: lab request\n"
    )
    report = run(inst)
    assert outcome(report) == {(where_of(ACME), "withdrawn")}
    assert {b.manifest.key for s in report.benchmarks for b in s.bundles} == {BETA}


def test_build_unreadable_tombstone_still_withdraws(inst: Instance) -> None:
    (inst.root / "bundles" / BENCH / f"{ACME}.withdrawn").write_text("not: [valid\n")
    report = run(inst)
    assert outcome(report) == {(where_of(ACME), "withdrawn"), (f"bundles/{BENCH}/{ACME}.withdrawn", "bad-tombstone")}


def test_build_enforces_the_budget(inst: Instance) -> None:
    config = inst.root / "leaderboards" / f"{BENCH}.yaml"
    config.write_text(config.read_text().replace(DEMO_EMBARGO, "embargo:\n  budget: {bundles: 3, window_days: 30}\n"))
    for name in ("run-3", "run-4", "run-5"):
        inst.add_submission("acme", name, VALID_ROWS)
    report = run(inst)
    assert outcome(report) == {(where_of("acme/run-5"), "over-budget")}
    (rejection,) = report.rejections
    assert "3 submission(s) per lab per 30 days" in rejection.message
