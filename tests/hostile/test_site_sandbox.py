"""The site generator holds nothing secret (issue 20): theme templates a maintainer may merge
after review (a ``theme.custom_dir`` partial, an ``extra_templates`` entry) render in Jinja's
sandbox, inside a child process whose environment is an allow-list.

Each payload is merged into the instance as a reviewed change would be, then the real
authorised build runs with the identity in memory and in SEALBOARD_IDENTITY: the build must
fail in the generator (reason ``site-generator``), publish nothing, and no error or log
line may hold the identity.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from jinja2 import Environment
from jinja2.exceptions import SecurityError

from builder.errors import BuilderError
from builder.render import generator
from builder.render.jinja_sandbox import sandboxed
from builder.render.site_guard import check_instance
from hostile.support import Instance

pytestmark = pytest.mark.slow  # builds sites

PAYLOADS = {
    "config-globals": "{{ config.__class__.__init__.__globals__ }}",
    "lipsum-environ": "{{ lipsum.__globals__.os.environ }}",
    "cycler-os": "{{ cycler.__init__.__globals__.os.environ['SEALBOARD_IDENTITY'] }}",
    "format-trick": "{{ '{0.__class__.__init__.__globals__}'.format(config) }}",
}


def test_plain_jinja_leaks_and_the_sandbox_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reason for the sandbox: the same payload prints the environment without it."""
    monkeypatch.setenv("SEALBOARD_IDENTITY", "AGE-SECRET-KEY-1PAYLOADCANARY")
    plain = Environment()
    assert "AGE-SECRET-KEY-1PAYLOADCANARY" in plain.from_string(PAYLOADS["lipsum-environ"]).render()
    box = sandboxed(plain)
    for payload in PAYLOADS.values():
        with pytest.raises(SecurityError):
            box.from_string(payload).render(config=object())


def test_remembered_verdicts_are_jinjas() -> None:
    """The per-type verdict cache decides as SandboxedEnvironment does, asked twice."""
    import types

    from jinja2.sandbox import SandboxedEnvironment

    def gen():  # type: ignore[no-untyped-def]
        yield 1

    box, reference = sandboxed(Environment()), SandboxedEnvironment()
    objects = [object(), "text", len, gen(), (lambda: 0).__code__, types.SimpleNamespace(a=1), type, test_remembered_verdicts_are_jinjas]
    for _ in range(2):
        for obj in objects:
            for attr in ("a", "_x", "__class__", "gi_frame", "gi_code", "mro", "co_code", "upper", "__globals__", "f_globals", "format"):
                assert box.is_safe_attribute(obj, attr, None) == reference.is_safe_attribute(obj, attr, None), (obj, attr)
    assert box.is_safe_attribute(gen(), "gi_frame", None) is False and box.is_safe_attribute("s", "upper", None) is True


def test_sandbox_keeps_the_theme_environment() -> None:
    env = Environment()
    env.filters["url"] = lambda value: f"./{value}"
    env.globals["site"] = {"name": "Board"}
    box = sandboxed(env)
    assert box.from_string("{{ 'a.css' | url }} {{ site.name }} {{ [3, 1] | sort | join(',') }}").render() == "./a.css Board 1,3"


def test_child_environment_is_an_allow_list() -> None:
    env = generator.scrubbed_env(
        {"PATH": "/usr/bin", "HOME": "/home/x", "LANG": "C.UTF-8", "LC_ALL": "C", "SEALBOARD_IDENTITY": "AGE-SECRET-KEY-1X",
         "GITHUB_TOKEN": "ghs_x", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "x", "AWS_SECRET_ACCESS_KEY": "x", "SSH_AUTH_SOCK": "/tmp/agent"}
    )  # fmt: skip
    passed = {"PATH", "HOME", "LANG", "LC_ALL"}
    set_here = {"PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "NO_MKDOCS_2_WARNING", generator.PROGRESS_ENV, "PYTHONPATH"}
    assert set(env) == passed | set_here
    # PYTHONPATH names only the running builder's root: the code the hooks were loaded from.
    assert env["PYTHONPATH"] == str(Path(generator.__file__).resolve().parents[2])


def _custom_dir(inst: Instance) -> Path:
    config = inst.root / "mkdocs.yml"
    config.write_text(config.read_text().replace("  name: material\n", "  name: material\n  custom_dir: site_src/overrides\n", 1))
    folder = inst.root / "site_src" / "overrides"
    (folder / "partials").mkdir(parents=True)
    return folder


def footer_partial(inst: Instance, payload: str) -> None:
    (_custom_dir(inst) / "partials" / "footer.html").write_text(f"<footer>{payload}</footer>\n")


def header_partial(inst: Instance, payload: str) -> None:
    (_custom_dir(inst) / "partials" / "header.html").write_text(f"<header>{payload}</header>\n")


def test_extra_templates_are_refused_they_bypass_the_sandbox(inst: Instance, tmp_path: Path) -> None:
    """mkdocs renders extra_templates with a bare jinja2.Template (not the theme's sandboxed
    environment), so the guard refuses the key; the refusal names it."""
    from builder.pipeline.build import build
    from builder.render.site_guard import UnsafeSiteError

    (inst.root / "site_src" / "robots.txt").write_text(f"User-agent: *\n# {PAYLOADS['lipsum-environ']}\n")
    config = inst.root / "mkdocs.yml"
    config.write_text(config.read_text() + "extra_templates:\n  - robots.txt\n")
    with pytest.raises(UnsafeSiteError) as caught:
        build(inst.root, tmp_path / "site", identities=[inst.identity])
    assert [(f.where, f.reason) for f in caught.value.findings] == [("mkdocs.yml", "mkdocs-extra-templates")]


@pytest.mark.parametrize(("route", "payload"), [(footer_partial, PAYLOADS["config-globals"]), (header_partial, PAYLOADS["lipsum-environ"])],
                         ids=["custom-dir-footer-partial", "custom-dir-header-partial"])  # fmt: skip
def test_reviewed_template_cannot_reach_the_identity(
    route, payload: str, inst: Instance, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from builder.pipeline.build import build

    route(inst, payload)
    assert check_instance(inst.root, ["soohak"]) == [], "the guard passes it: the sandbox is what stops it"
    # The build itself holds the real identity (in memory); the environment holds a canary.
    monkeypatch.setenv("SEALBOARD_IDENTITY", "AGE-SECRET-KEY-1CANARYCANARYCANARY")
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_canarytoken")
    envs: list[dict[str, str]] = []
    real_popen = subprocess.Popen

    def recording_popen(cmd, *args, **kwargs):  # type: ignore[no-untyped-def]
        if "mkdocs" in cmd:  # the build runs git too
            envs.append(dict(kwargs["env"]))
        return real_popen(cmd, *args, **kwargs)

    monkeypatch.setattr(generator.subprocess, "Popen", recording_popen)
    out = tmp_path / "site"
    with pytest.raises(BuilderError) as caught:
        build(inst.root, out, identities=[inst.identity])
    assert caught.value.reason == "site-generator"
    assert "SecurityError" in caught.value.message or "unsafe" in caught.value.message, caught.value.message
    assert "AGE-SECRET-KEY" not in str(caught.value) and "ghs_canary" not in str(caught.value)
    assert not out.exists()
    (env,) = envs
    assert "SEALBOARD_IDENTITY" not in env and "GITHUB_TOKEN" not in env


def test_benign_custom_dir_partial_is_used_and_not_published_as_a_page(inst: Instance, tmp_path: Path) -> None:
    from builder.pipeline.build import build

    footer_partial(inst, "<p class='sb-test-footer'>Run by {{ config.site_name }}</p>")
    out = tmp_path / "site"
    build(inst.root, out, identities=[inst.identity])
    assert "<p class='sb-test-footer'>Run by Sealboard test</p>" in (out / "index.html").read_text()
    assert not (out / "overrides").exists() and not list(out.rglob("footer.html"))
