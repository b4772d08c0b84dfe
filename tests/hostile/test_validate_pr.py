"""PR validation (`builder.validate.pr.validate`) over a real git repository.

The base commit is the session instance (registry, config, dataset, two bundles). Each
case is one pull request on top of it, as a lab or an attacker would push it; validation
must report exactly the expected problems (path and reason), trusting only the base
revision, and ``markdown()`` must list one line per problem.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from builder.bundles.manifest import MANIFEST, SIGNATURE
from builder.trust.registry_admin import add_lab, add_lab_key, sign_registry
from builder.trust.sshsig import NS_BUNDLE, NS_REGISTRY, sign
from builder.validate.pr import ValidationReport, code, validate
from hostile.support import NOW, Instance, clone, edit_manifest, new_key

GIT_ENV = {
    "GIT_AUTHOR_NAME": "PR author",
    "GIT_AUTHOR_EMAIL": "pr@example.invalid",
    "GIT_COMMITTER_NAME": "PR author",
    "GIT_COMMITTER_EMAIL": "pr@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_SYSTEM": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    result = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, env={**os.environ, **GIT_ENV}, timeout=60)
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout.decode().strip()


@dataclass
class Repo:
    inst: Instance
    base: str

    @property
    def root(self) -> Path:
        return self.inst.root


@pytest.fixture(scope="module")
def base_repo(base: Instance, tmp_path_factory: pytest.TempPathFactory) -> Repo:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    inst = clone(base, tmp_path_factory.mktemp("repo") / "inst")
    git(inst.root, "init", "-q", "-b", "main")
    git(inst.root, "add", "-A")
    git(inst.root, "commit", "-q", "-m", "base")
    return Repo(inst, git(inst.root, "rev-parse", "HEAD"))


@pytest.fixture
def repo(base_repo: Repo, tmp_path: Path) -> Repo:
    return Repo(clone(base_repo.inst, tmp_path / "inst"), base_repo.base)


def commit(repo: Repo, message: str = "PR") -> None:
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-q", "--allow-empty", "-m", message)


def new_acme_bundle(repo: Repo, name: str = "run-3") -> Path:
    """A fresh, valid acme bundle (made with the real bundle tools, signed by acme)."""
    from hostile.support import VALID_ROWS

    return repo.inst.add_submission("acme", name, VALID_ROWS)


# --- the cases ---------------------------------------------------------------------------------

B = "bundles/soohak"


def valid_lab_bundle(repo: Repo) -> None:
    new_acme_bundle(repo)


def symlink_in_bundle(repo: Repo) -> None:
    bundle = new_acme_bundle(repo)
    target = bundle / "results.jsonl.age"
    target.unlink()
    os.symlink("../run-1/results.jsonl.age", target)


def symlink_to_outside(repo: Repo) -> None:
    bundle = new_acme_bundle(repo)
    target = bundle / "results.jsonl.age"
    target.unlink()
    os.symlink("/etc/passwd", target)


def submodule_in_bundle(repo: Repo) -> bool:
    bundle = new_acme_bundle(repo)
    (bundle / "results.jsonl.age").unlink()
    git(repo.root, "add", "-A")
    git(repo.root, "update-index", "--add", "--cacheinfo", f"160000,{repo.base},{B}/acme/run-3/results.jsonl.age")
    git(repo.root, "commit", "-q", "-m", "submodule")  # `git add -A` would drop the gitlink again
    return True


def gitmodules_file(repo: Repo) -> None:
    (repo.root / ".gitmodules").write_text('[submodule "x"]\n\tpath = x\n\turl = https://example.invalid/x\n')


def touches_outside_lab(repo: Repo) -> None:
    new_acme_bundle(repo)
    (repo.root / "mkdocs.yml").write_text((repo.root / "mkdocs.yml").read_text() + "\nextra_javascript: [https://evil.invalid/x.js]\n")


def two_labs(repo: Repo) -> None:
    new_acme_bundle(repo)
    repo.inst.add_submission("beta", "run-3", __import__("hostile.support", fromlist=["BETA_ROWS"]).BETA_ROWS)


def rewrites_registry_history(repo: Repo) -> None:
    # Maintainers m1 and m2 re-sign an edited v0002 in place: still refused, history is history.
    path = repo.root / "keys/registry/v0002.yaml"
    data = path.read_bytes().replace(b"Acme Lab", b"Acme Labs", 1)
    path.write_bytes(data)
    path.with_name("v0002.yaml.sig").write_text("".join(sign(repo.inst.maintainer_keys[m], data, NS_REGISTRY) for m in ("m1", "m3")))


def deletes_latest_registry_version(repo: Repo) -> None:
    for suffix in ("", ".sig"):
        (repo.root / f"keys/registry/v0002.yaml{suffix}").unlink()


def empties_latest_registry_signatures(repo: Repo) -> None:
    # v0002.yaml is byte-identical, but without its signatures v0001 would be in force again.
    (repo.root / "keys/registry/v0002.yaml.sig").write_text("")


def registry_below_threshold(repo: Repo, tmp: Path) -> None:
    add_lab(repo.root, "gamma", "Gamma Lab", [new_key(tmp, "gamma")[0].public])
    sign_registry(repo.root, repo.inst.maintainer_keys["m1"])  # M − 1


def registry_valid_change(repo: Repo, tmp: Path) -> None:
    add_lab(repo.root, "gamma", "Gamma Lab", [new_key(tmp, "gamma")[0].public])
    sign_registry(repo.root, repo.inst.maintainer_keys["m1"])
    sign_registry(repo.root, repo.inst.maintainer_keys["m3"])


def self_vouching_key(repo: Repo, tmp: Path) -> None:
    # The PR registers a new acme key (unsigned) and signs its bundle with it.
    key = new_key(tmp, "acme-new")[0]
    add_lab_key(repo.root, "acme", key.public)
    bundle = new_acme_bundle(repo)
    (bundle / SIGNATURE).write_text(sign(key, (bundle / MANIFEST).read_bytes(), NS_BUNDLE))


def removes_a_bundle(repo: Repo) -> None:
    shutil.rmtree(repo.root / B / "beta/run-2")


def edits_another_labs_bundle(repo: Repo) -> None:
    path = repo.root / B / "beta/run-2/manifest.json"
    path.write_bytes(path.read_bytes().replace(b'"Model One', b'"Model 0ne', 1))


def bad_signature(repo: Repo) -> None:
    bundle = new_acme_bundle(repo)
    path = bundle / MANIFEST
    path.write_bytes(path.read_bytes().replace(b'"Model One"', b'"Model Onf"', 1))


def signed_by_other_lab(repo: Repo) -> None:
    bundle = new_acme_bundle(repo)
    (bundle / SIGNATURE).write_text(sign(repo.inst.lab_keys["beta"], (bundle / MANIFEST).read_bytes(), NS_BUNDLE))


def misplaced_bundle(repo: Repo) -> None:
    bundle = new_acme_bundle(repo)
    bundle.rename(bundle.with_name("run-4"))


def changes_the_dataset(repo: Repo) -> None:
    path = repo.root / B / "_dataset/test-1/manifest.json"
    path.write_bytes(path.read_bytes() + b" ")


def unknown_benchmark(repo: Repo) -> None:
    bundle = new_acme_bundle(repo)
    target = repo.root / "bundles/other/acme/run-3"
    target.parent.mkdir(parents=True)
    bundle.rename(target)


def oversize_signature(repo: Repo) -> None:
    bundle = new_acme_bundle(repo)
    with (bundle / SIGNATURE).open("a") as handle:
        handle.write("\n" * (20 << 10))


def hostile_manifest_markdown(repo: Repo) -> None:
    # An injected name: the report must stay one line per problem and not render a link.
    bundle = repo.root / B / "acme/x]\n- fake `ok`(https://evil.invalid)"
    bundle.mkdir(parents=True)
    (bundle / "manifest.json").write_text("{}")


CASES: dict[str, tuple[Callable, list[tuple[str, str]]]] = {
    "pr/valid-lab-bundle": (valid_lab_bundle, []),
    "pr/registry-change-signed-by-threshold": (registry_valid_change, []),
    "pr/symlink-in-bundle": (symlink_in_bundle, [(f"{B}/acme/run-3/results.jsonl.age", "symlink")]),
    "pr/symlink-to-etc-passwd": (symlink_to_outside, [(f"{B}/acme/run-3/results.jsonl.age", "symlink")]),
    "pr/submodule-in-bundle": (submodule_in_bundle, [(f"{B}/acme/run-3/results.jsonl.age", "submodule")]),
    "pr/gitmodules-file": (gitmodules_file, [(".gitmodules", "submodule"), (".gitmodules", "maintainer-review")]),
    # A script from another host is refused outright now (issue 20), besides needing review.
    "pr/touches-files-outside-its-lab": (touches_outside_lab, [("mkdocs.yml", "external-script"), ("mkdocs.yml", "maintainer-review")]),
    "pr/bundles-of-two-labs": (two_labs, [("bundles/*/beta/", "outside-lab")]),
    "pr/rewrites-old-registry-version": (rewrites_registry_history, [("keys/registry/v0002.yaml", "history-rewritten")]),
    "pr/deletes-latest-registry-version": (deletes_latest_registry_version, [("keys/registry/v0002.yaml", "history-rewritten")]),
    "pr/empties-latest-registry-signatures": (empties_latest_registry_signatures, [("keys/registry", "history-rewritten")]),
    "pr/registry-change-m-minus-1-signatures": (registry_below_threshold, [("keys/registry/v0003.yaml", "below-threshold")]),
    "pr/self-vouching-key-and-bundle": (
        self_vouching_key,
        [
            ("keys/registry", "outside-lab"),
            ("keys/registry/v0003.yaml", "below-threshold"),
            (f"{B}/acme/run-3/manifest.json.sig", "unregistered-key"),
        ],
    ),
    "pr/removes-a-bundle": (removes_a_bundle, [(f"{B}/beta/run-2", "removed-bundle")]),
    # A merged bundle is immutable (design invariant 9): refused before its bytes are read.
    "pr/edits-another-labs-bundle": (edits_another_labs_bundle, [(f"{B}/beta/run-2", "bundle-immutable")]),
    "pr/tampered-manifest": (bad_signature, [(f"{B}/acme/run-3/manifest.json.sig", "bad-signature")]),
    "pr/signed-by-other-labs-key": (signed_by_other_lab, [(f"{B}/acme/run-3/manifest.json.sig", "key-of-other-lab")]),
    "pr/submission-id-not-folder": (misplaced_bundle, [(f"{B}/acme/run-4/manifest.json", "misplaced")]),
    "pr/changes-the-dataset": (changes_the_dataset, [(f"{B}/_dataset/test-1", "dataset-change")]),
    "pr/unknown-benchmark": (unknown_benchmark, [("bundles/other/acme/run-3", "unknown-benchmark")]),
    "pr/oversize-signature": (oversize_signature, [(f"{B}/acme/run-3/manifest.json.sig", "oversize")]),
}


def _apply(case: str, repo: Repo, tmp_path: Path) -> ValidationReport:
    mutate, _ = CASES[case]
    committed = mutate(repo, tmp_path) if mutate.__code__.co_argcount == 2 else mutate(repo)
    if not committed:
        commit(repo, case)
    return validate(repo.root, repo.base, "HEAD", now=NOW)


# Cases where validate() reports the expected problem plus a duplicate or a spurious
# follow-on problem at the same path (see the xfail test below).
NOISY = {
    "pr/symlink-in-bundle": "size-mismatch",
    "pr/symlink-to-etc-passwd": "size-mismatch",
    "pr/submodule-in-bundle": "size-mismatch",
    "pr/removes-a-bundle": "removed-bundle",
}


def _check_markdown(report: ValidationReport, ok: bool) -> None:
    md = report.markdown()
    problem_lines = [line for line in md.splitlines() if line.startswith("- `")]
    assert len(problem_lines) == len(report.problems), md
    ordered = [p for p in report.problems if not p.review] + [p for p in report.problems if p.review]
    for problem, line in zip(ordered, problem_lines):
        assert line.startswith(f"- {code(problem.path)} — **{problem.reason}**: "), line
    assert ("passed" in md.splitlines()[0]) == ok, md
    assert md.splitlines()[0].startswith(f"## Sealboard validation {report.status} ")


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_pull_request(case: str, repo: Repo, tmp_path: Path) -> None:
    report = _apply(case, repo, tmp_path)
    expected = CASES[case][1]
    got = [(p.path, p.reason) for p in report.problems]
    if case in NOISY:  # every expected problem, and nothing at any other path
        assert set(expected) <= set(got) and {p for p, _ in got} <= {p for p, _ in expected}, report.markdown()
    else:
        assert sorted(got) == sorted(expected), report.markdown()
    assert report.ok == (not expected)
    _check_markdown(report, ok=not expected)
    if case == "pr/valid-lab-bundle":
        assert report.verified == [f"{B}/acme/run-3"]


@pytest.mark.parametrize("case", list(NOISY), ids=list(NOISY))
def test_pull_request_reports_each_problem_once(case: str, repo: Repo, tmp_path: Path) -> None:
    report = _apply(case, repo, tmp_path)
    assert sorted((p.path, p.reason) for p in report.problems) == sorted(CASES[case][1]), report.markdown()


def test_markdown_cannot_be_injected(repo: Repo, tmp_path: Path) -> None:
    """A directory name carrying a newline, backticks and a link stays inside its one line."""
    hostile_manifest_markdown(repo)
    commit(repo)
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    md = report.markdown()
    assert report.problems, md
    problem_lines = [line for line in md.splitlines() if line.startswith("- ")]
    assert len(problem_lines) == len(report.problems), md
    assert "](https://evil" not in md
    assert not any(line.lstrip().startswith("- fake") for line in md.splitlines()), md


def test_deeply_nested_registry_yaml_is_a_problem(repo: Repo) -> None:
    (repo.root / "keys/registry/v0003.yaml").write_text("[" * 5000 + "]" * 5000 + "\n")
    commit(repo)
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    assert [p.path for p in report.problems] == ["keys/registry/v0003.yaml"], report.markdown()


def test_validation_runs_no_code_from_the_pr(repo: Repo, tmp_path: Path) -> None:
    """A PR adding a conftest.py / mkdocs hook and a YAML tag executes nothing."""
    marker = tmp_path / "pwned"
    (repo.root / "conftest.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    (repo.root / "leaderboards/evil.yaml").write_text(f'x: !!python/object/apply:os.system ["touch {marker}"]\n')
    commit(repo)
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    assert not marker.exists()
    assert report.problems == [] or all(p.reason != "error" for p in report.problems)


def test_validation_trusts_only_the_base_registry(repo: Repo, tmp_path: Path) -> None:
    """Head's own threshold-signed registry change does not vouch for a key in the same PR range."""
    key = new_key(tmp_path, "acme-2")[0]
    add_lab_key(repo.root, "acme", key.public)
    for m in ("m1", "m2"):
        sign_registry(repo.root, repo.inst.maintainer_keys[m])
    commit(repo, "maintainers add a key")
    bundle = new_acme_bundle(repo)
    edit_manifest(bundle, lambda obj: None, key)
    commit(repo, "lab uses it")
    report = validate(repo.root, repo.base, "HEAD", now=NOW)
    reasons = sorted((p.path, p.reason) for p in report.problems)
    assert (f"{B}/acme/run-3/manifest.json.sig", "unregistered-key") in reasons, report.markdown()
    assert ("keys/registry", "outside-lab") in reasons


def test_private_results_on_a_benchmark_without_a_private_key_are_refused(repo: Repo) -> None:
    """A lab keeps its results private (publish_on_release.results: false) on a benchmark whose
    config (on the target branch) names no private results key: nobody could ever open them,
    so validate refuses the bundle with the build's reason, before it is merged. The same
    commit passes on a target that has the key."""
    from hostile.support import VALID_ROWS

    repo.inst.add_submission("acme", "run-3", VALID_ROWS, publish_results=False)  # sealed to the key
    commit(repo, "acme: a private run")
    pr = git(repo.root, "rev-parse", "HEAD")
    with_key = validate(repo.root, repo.base, pr, now=NOW)
    assert with_key.problems == [] and with_key.verified == [f"{B}/acme/run-3"], with_key.markdown()

    git(repo.root, "checkout", "-q", "-b", "no-key", repo.base)  # maintainers drop the key
    config = repo.root / "leaderboards/soohak.yaml"
    config.write_text("".join(line for line in config.read_text().splitlines(keepends=True) if not line.startswith("private_recipient:")))
    commit(repo, "maintainers: no private results key")
    target = git(repo.root, "rev-parse", "HEAD")
    git(repo.root, "cherry-pick", pr)
    report = validate(repo.root, target, "HEAD", now=NOW)
    assert [(p.path, p.reason) for p in report.problems] == [(f"{B}/acme/run-3/results.jsonl.age", "sealed-private")], report.markdown()
    [p] = report.problems
    assert (
        p.message
        == "results.jsonl.age is kept private (publish_on_release.results: false) but soohak has no private results key to open it with"
    )
    assert (
        p.hint is not None
        and "add private_recipient" in p.hint
        and "leaderboards/soohak.yaml" in p.hint
        and "publish_on_release.results: true" in p.hint
    )
    assert report.status == "failed" and report.verified == []
    _check_markdown(report, ok=False)


def test_a_main_template_in_the_custom_dir_is_refused_on_the_pr(repo: Repo) -> None:
    """theme.custom_dir (set on the target branch) is a theme folder: a PR adding main.html
    there would replace Sealboard's, which carries the rehearsal banner and noindex. The
    build refuses it (tests/hostile/test_site_guard.py); validate must say so on the PR."""
    config = repo.root / "mkdocs.yml"
    config.write_text(config.read_text().replace("  name: material\n", "  name: material\n  custom_dir: site_src/overrides\n", 1))
    (repo.root / "site_src/overrides").mkdir(parents=True)
    (repo.root / "site_src/overrides/partial-ok.html").write_text("<p>fine</p>\n")
    commit(repo, "maintainers: a theme folder")
    target = git(repo.root, "rev-parse", "HEAD")
    (repo.root / "site_src/overrides/main.html").write_text('{% extends "base.html" %}\n')
    commit(repo, "replace main.html")
    report = validate(repo.root, target, "HEAD", now=NOW)
    shadows = [(p.path, p.reason, p.message) for p in report.problems if p.reason == "shadows-generated"]
    assert shadows == [
        (
            "site_src/overrides/main.html",
            "shadows-generated",
            "would replace the generated main.html (Sealboard's template: the banner and noindex) (the authorised build refuses to run with this)",
        )
    ], report.markdown()
    assert not report.ok

    # The same file outside the theme folder is a page source, not a template: no refusal.
    git(repo.root, "checkout", "-q", "-b", "elsewhere", target)
    (repo.root / "site_src/notes").mkdir(parents=True)
    (repo.root / "site_src/notes/main.html").write_text("<p>a page</p>\n")
    commit(repo, "a page called main.html")
    assert not [p for p in validate(repo.root, target, "HEAD", now=NOW).problems if p.reason == "shadows-generated"]


def test_pointing_custom_dir_at_a_folder_with_a_main_template_is_refused(repo: Repo) -> None:
    """The PR sets custom_dir itself, to a folder that already holds a main.html."""
    (repo.root / "site_src/theme").mkdir(parents=True)
    (repo.root / "site_src/theme/main.html").write_text('{% extends "base.html" %}\n')
    commit(repo, "a folder of site_src")
    target = git(repo.root, "rev-parse", "HEAD")
    config = repo.root / "mkdocs.yml"
    config.write_text(config.read_text().replace("  name: material\n", "  name: material\n  custom_dir: site_src/theme\n", 1))
    commit(repo, "use it as the theme folder")
    report = validate(repo.root, target, "HEAD", now=NOW)
    assert ("site_src/theme/main.html", "shadows-generated") in [(p.path, p.reason) for p in report.problems], report.markdown()


def test_python_in_the_site_and_theme_includes_outside_it_are_refused_on_the_pr(repo: Repo) -> None:
    """Issue 44, class 1: what the build's site guard refuses (tests/hostile/test_generator_confinement.py),
    validate says on the PR: a helper module in site_src/, a toc slugify naming it, a partial
    including the identity by path. Control: a partial naming a theme template passes."""
    config = repo.root / "mkdocs.yml"
    config.write_text(config.read_text().replace("  name: material\n", "  name: material\n  custom_dir: site_src/overrides\n", 1))
    (repo.root / "site_src/overrides/partials").mkdir(parents=True)
    (repo.root / "site_src/overrides/partials/footer.html").write_text('{% include "partials/copyright.html" %}\n')
    commit(repo, "maintainers: a theme folder")
    target = git(repo.root, "rev-parse", "HEAD")
    assert [p for p in validate(repo.root, "HEAD~1", "HEAD", now=NOW).problems if p.reason != "maintainer-review"] == []
    (repo.root / "site_src/helper.py").write_text("def evil(**kwds):\n    return str\n")
    config.write_text(config.read_text() + "  - pymdownx.tabbed:\n      slugify: {object: docs.helper.evil, kwds: {}}\n")
    (repo.root / "site_src/overrides/partials/header.html").write_text('<header>{% include "../../../keys/demo/identity.txt" %}</header>\n')
    commit(repo, "a reviewed site change")
    report = validate(repo.root, target, "HEAD", now=NOW)
    found = sorted((p.path, p.reason) for p in report.problems if p.reason != "maintainer-review")
    assert found == [("mkdocs.yml", "config-python-object"), ("site_src/helper.py", "site-python-module"),
                     ("site_src/overrides/partials/header.html", "theme-include-path")], report.markdown()  # fmt: skip
    assert not report.ok
