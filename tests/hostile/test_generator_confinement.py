"""One confinement for every generator (issue 44, class 1): whatever renders the pages has
no route to a secret, and the site guard refuses every config construct that names Python.

With ``--site-generator zensical``, a reviewed mkdocs.yml made Zensical import and call any
object named in Markdown extension options, or a helper module in site_src/; the child read
the build's environment through /proc/<parent>/environ, and a theme partial included the
identity file by an absolute or relative path. Each route is refused twice here:

- by the site guard, on the config and sources themselves, for every generator, with the
  exact reason (``config-python-object``, ``site-python-module``, ``theme-include-path``,
  ``theme-include-dynamic``), before the build reads any bundle;
- by the confinement (``render/confinement.py``): the child started the way the build
  starts it reads the staged tree and nothing else, not an ancestor's /proc entries, and the
  build is non-dumpable while it holds a secret. The slow cases run both real generators,
  with the guard bypassed, on a small staged tree that tries each route.

Controls: the shipped configs and ordinary extension settings pass the guard; the same small
tree without the hostile parts builds with both generators; the demo builds with both
(tests/render/test_site_generators.py).
"""

from __future__ import annotations

import errno
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from builder.errors import BuilderError
from builder.render import confinement, generator
from builder.render.site_guard import UnsafeSiteError, check_instance, check_mkdocs_config, check_theme_template
from hostile.support import Instance

needs_landlock = pytest.mark.skipif(
    confinement.landlock_abi() < 1, reason="this kernel has no Landlock (the build refuses to run a generator here)"
)
CANARY = "AGE-SECRET-KEY-1CONFINEMENTCANARYCONFINEMENTCANARY"


def extensions(options: str) -> bytes:
    """A mkdocs.yml as an instance writes it, with ``options`` as its markdown_extensions."""
    return f"site_name: Board\ndocs_dir: site_src\ntheme:\n  name: material\nmarkdown_extensions:\n{options}".encode()


# --- the guard: nothing in the config names Python -------------------------------------------

OBJECT_FORMS = {
    "toc-slugify-object": ("  - toc:\n      slugify:\n        object: docs.helper.evil\n        kwds: {case: lower}\n", "markdown_extensions.toc.slugify"),
    "tabbed-slugify-object": ("  - pymdownx.tabbed:\n      slugify: {object: os.system, kwds: {command: id}}\n", "markdown_extensions.pymdownx.tabbed.slugify"),
    "blocks-tab-slugify-object": ("  - pymdownx.blocks.tab:\n      slugify: {object: docs.helper.evil}\n", "markdown_extensions.pymdownx.blocks.tab.slugify"),
    "superfences-format-name": ("  - pymdownx.superfences:\n      custom_fences:\n        - name: x\n          class: x\n          format: docs.helper.evil\n",
                                "markdown_extensions.pymdownx.superfences.custom_fences[0].format"),
    "superfences-validator-object": ("  - pymdownx.superfences:\n      custom_fences:\n        - name: x\n          class: x\n          validator: {object: builtins.exec}\n",
                                     "markdown_extensions.pymdownx.superfences.custom_fences[0].validator"),
    "inlinehilite-format-name": ("  - pymdownx.inlinehilite:\n      custom_inline:\n        - name: x\n          class: x\n          format: helper.evil\n",
                                 "markdown_extensions.pymdownx.inlinehilite.custom_inline[0].format"),
    "emoji-index-name": ("  - pymdownx.emoji:\n      emoji_index: docs.helper.evil\n", "markdown_extensions.pymdownx.emoji.emoji_index"),
    "dotted-path-anywhere": ("  - pymdownx.magiclink:\n      provider: subprocess.getoutput\n", "markdown_extensions.pymdownx.magiclink.provider"),
    "entry-point-form": ("  - toc:\n      permalink: helper:evil\n", "markdown_extensions.toc.permalink"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(OBJECT_FORMS), ids=list(OBJECT_FORMS))
def test_guard_refuses_python_named_in_extension_options(case: str) -> None:
    options, at = OBJECT_FORMS[case]
    findings = check_mkdocs_config(extensions(options))
    assert [(f.where, f.reason) for f in findings] == [("mkdocs.yml", "config-python-object")], findings
    assert findings[0].message.startswith(at), findings[0].message


def test_guard_refuses_a_function_name_in_plugin_options() -> None:
    config = b"site_name: Board\ndocs_dir: site_src\ntheme:\n  name: material\nplugins:\n  - tags:\n      tags_slugify: {object: docs.helper.evil}\n"
    assert [f.reason for f in check_mkdocs_config(config)] == ["config-python-object"]


def test_control_ordinary_extension_settings_pass() -> None:
    options = ("  - toc:\n      permalink: true\n      title: On this page\n  - pymdownx.superfences:\n      custom_fences:\n        - name: mermaid\n"
               "          class: mermaid\n  - pymdownx.tabbed:\n      alternate_style: true\n  - pymdownx.highlight:\n      pygments_lang_class: true\n"
               "      css_class: highlight\n  - pymdownx.arithmatex:\n      generic: true\n")  # fmt: skip
    assert check_mkdocs_config(extensions(options)) == []
    config = b"site_name: Board\ndocs_dir: site_src\ntheme:\n  name: material\nplugins:\n  - search\n  - tags:\n      tags_file: tags.md\n"
    assert check_mkdocs_config(config) == []


def test_build_refuses_zensical_importing_an_object_before_reading_a_bundle(
    inst: Instance, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reported attack, through the real build with Zensical: a helper module and a toc
    slugify naming it. The guard stops the build first (nothing staged, nothing imported)."""
    from builder.pipeline.build import build

    marker = tmp_path / "pwned"
    (inst.root / "site_src" / "helper.py").write_text(
        f"def evil(**kwds):\n    open({str(marker)!r}, 'w').write('x')\n    return lambda text, sep: text\n"
    )
    config = inst.root / "mkdocs.yml"
    config.write_text(config.read_text() + "  - pymdownx.tabbed:\n      slugify:\n        object: docs.helper.evil\n        kwds: {}\n")
    monkeypatch.setenv("SEALBOARD_IDENTITY", CANARY)
    with pytest.raises(UnsafeSiteError) as caught:
        build(inst.root, tmp_path / "site", identities=[inst.identity], site_generator="zensical")
    assert sorted((f.where, f.reason) for f in caught.value.findings) == [
        ("mkdocs.yml", "config-python-object"),
        ("site_src/helper.py", "site-python-module"),
    ]
    assert not marker.exists() and not (tmp_path / "site").exists() and not (inst.root / ".sealboard").exists()


# --- the guard: no Python among the site sources ----------------------------------------------


@pytest.mark.parametrize("rel", ["site_src/helper.py", "site_src/pkg/__init__.py", "site_src/helper.pyc", "site_src/fast.abi3.so",
                                 "site_src/__pycache__/helper.cpython-311.pyc", "site_src/setup.pth"])  # fmt: skip
def test_guard_refuses_a_python_module_in_site_src(rel: str, inst: Instance) -> None:
    path = inst.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"import os\n")
    assert [(f.where, f.reason) for f in check_instance(inst.root, ["soohak"])] == [(rel, "site-python-module")]


def test_control_a_script_published_as_text_passes(inst: Instance) -> None:
    (inst.root / "site_src" / "verify.py.txt").write_text("print('hello')\n")
    assert check_instance(inst.root, ["soohak"]) == []


# --- the guard: theme templates include only theme templates ----------------------------------


def partial(inst: Instance, text: str, name: str = "footer.html") -> str:
    config = inst.root / "mkdocs.yml"
    if "custom_dir" not in config.read_text():
        config.write_text(config.read_text().replace("  name: material\n", "  name: material\n  custom_dir: site_src/overrides\n", 1))
    folder = inst.root / "site_src" / "overrides" / "partials"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return f"site_src/overrides/partials/{name}"


def identity_file(inst: Instance) -> Path:
    """The identity where an operator keeps it beside the checkout (the demo: keys/demo/identity.txt)."""
    path = inst.root / "keys" / "identity.txt"
    path.write_text(inst.identity.reveal_secret())
    return path


@pytest.mark.parametrize("how", ["absolute", "relative", "relative-import", "extends", "list"])
def test_guard_refuses_a_partial_including_the_identity(how: str, inst: Instance) -> None:
    target = {"absolute": str(identity_file(inst)), "relative": "../../../keys/identity.txt"}.get(how, "../../keys/identity.txt")
    text = {"relative-import": f'{{% import "{target}" as k %}}{{{{ k }}}}', "extends": f'{{% extends "{target}" %}}',
            "list": f'{{% include ["partials/copyright.html", "{target}"] %}}'}.get(how, f'<footer>{{% include "{target}" %}}</footer>')  # fmt: skip
    rel = partial(inst, text)
    assert [(f.where, f.reason) for f in check_instance(inst.root, ["soohak"])] == [(rel, "theme-include-path")]


def test_guard_refuses_a_template_name_built_while_rendering(inst: Instance) -> None:
    # config.extra or a page's front matter would choose the file: "../../../keys/identity".
    rel = partial(inst, '{% include "partials/" ~ config.extra.footer ~ ".html" %}')
    assert [(f.where, f.reason) for f in check_instance(inst.root, ["soohak"])] == [(rel, "theme-include-dynamic")]


def test_control_partials_naming_theme_templates_pass(inst: Instance) -> None:
    partial(
        inst,
        '{% include "partials/copyright.html" %}{% import "partials/language.html" as lang with context %}<p>{{ lang.t("meta.comments") }}</p>',
    )
    partial(inst, "<p>no statements at all</p>", "header.html")
    assert check_instance(inst.root, ["soohak"]) == []
    assert check_theme_template("x.png", b"\x89PNG\r\n\x1a\n{%\xff") == []  # not UTF-8: not a template


# --- the confinement itself ---------------------------------------------------------------------

PROBE = """
import errno, os, sys
def attempt(label, fn):
    try:
        fn()
        print(label, "ok")
    except OSError as exc:
        print(label, errno.errorcode.get(exc.errno, exc.errno))
staged, secret = sys.argv[1], sys.argv[2]
attempt("read-staged", lambda: open(os.path.join(staged, "docs", "index.md")).read())
attempt("write-staged", lambda: open(os.path.join(staged, "out.txt"), "w").write("x"))
attempt("read-identity", lambda: open(secret).read())
attempt("read-identity-relative", lambda: open(os.path.join(staged, "..", "..", "keys", "identity.txt")).read())
attempt("write-outside", lambda: open(os.path.join(os.path.dirname(secret), "dropped.txt"), "w").write("x"))
attempt("parent-environ", lambda: open(f"/proc/{os.getppid()}/environ", "rb").read())
attempt("parent-mem", lambda: open(f"/proc/{os.getppid()}/mem", "rb").close())
"""


def staged_tree(inst: Instance) -> Path:
    staged = inst.root / ".sealboard" / "staged"
    (staged / "docs").mkdir(parents=True)
    (staged / "docs" / "index.md").write_text("# Board\n\nPublic text.\n")
    return staged


def probe(cmd: list[str], env: dict[str, str]) -> dict[str, str]:
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(line.split(" ", 1) for line in done.stdout.splitlines())


@needs_landlock
def test_the_generator_child_reads_only_the_staged_tree(inst: Instance, monkeypatch: pytest.MonkeyPatch) -> None:
    """The child started the way the build starts a generator (``generator.confined``):
    the staged tree is there, the identity file and the parent's /proc entries are not."""
    secret, staged = identity_file(inst), staged_tree(inst)
    monkeypatch.setenv("SEALBOARD_IDENTITY", CANARY)
    cmd = [sys.executable, "-P", "-c", PROBE, str(staged), str(secret)]
    # Control: the same probe unconfined reaches everything (so the denials below are the confinement's).
    assert set(probe(cmd, generator.scrubbed_env()).values()) == {"ok"}
    (staged / "out.txt").unlink()
    (secret.parent / "dropped.txt").unlink()
    seen = probe(generator.confined(cmd, staged, staged / "site-build"), generator.scrubbed_env())
    assert seen == {"read-staged": "ok", "write-staged": "ok", "read-identity": "EACCES", "read-identity-relative": "EACCES",
                    "write-outside": "EACCES", "parent-environ": "EACCES", "parent-mem": "EACCES"}  # fmt: skip
    assert not (secret.parent / "dropped.txt").exists()


def test_without_landlock_the_generator_does_not_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(confinement, "landlock_abi", lambda: 0)
    monkeypatch.delenv(generator.INSECURE_NO_SANDBOX, raising=False)
    with pytest.raises(BuilderError) as caught:
        generator.confined(["true"], tmp_path, tmp_path / "site")
    assert caught.value.reason == "site-unconfined"
    monkeypatch.setenv(generator.INSECURE_NO_SANDBOX, "1")
    assert generator.confined(["true"], tmp_path, tmp_path / "site") == ["true"]  # the operator's loud switch, and only it


HOLDER = """
import os, subprocess, sys
from builder.render import confinement
confinement.drop_capabilities()  # as a CI runner's user: no CAP_SYS_PTRACE
if sys.argv[1] == "hold":
    confinement.hold_secrets()
peek = "import os\\ntry:\\n print(open('/proc/%d/environ' % os.getppid(), 'rb').read().decode(errors='replace'))\\nexcept OSError as e:\\n print('refused', e.errno)"
print(subprocess.run([sys.executable, "-c", peek], capture_output=True, text=True, env={"PYTHONPATH": os.environ.get("PYTHONPATH", "")}).stdout)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_a_process_holding_a_secret_is_not_dumpable() -> None:
    """Another process of the same user (no CAP_SYS_PTRACE: the confined child has no
    capabilities) reads a dumpable process's environment, not one that called hold_secrets."""
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.pathsep.join(sys.path), "SEALBOARD_IDENTITY": CANARY}
    read = subprocess.run([sys.executable, "-c", HOLDER, "no"], env=env, capture_output=True, text=True, timeout=120)
    assert CANARY in read.stdout, (read.stdout, read.stderr[-1000:])  # control
    held = subprocess.run([sys.executable, "-c", HOLDER, "hold"], env=env, capture_output=True, text=True, timeout=120)
    assert CANARY not in held.stdout and f"refused {errno.EACCES}" in held.stdout, (held.stdout, held.stderr[-1000:])


def test_the_authorised_build_holds_its_secrets_non_dumpable(inst: Instance, tmp_path: Path) -> None:
    """build() marks itself before it reads anything; the guard's refusal comes after."""
    code = ("import sys; from pathlib import Path; from builder.render import confinement; from builder.pipeline.build import build\n"
            "from builder.trust.seal import load_identity\nassert confinement.is_dumpable()\n"
            "try:\n    build(Path(sys.argv[1]), Path(sys.argv[2]), identities=[load_identity(Path(sys.argv[3]).read_bytes())])\n"
            "except Exception as exc:\n    print(type(exc).__name__)\nprint('dumpable', confinement.is_dumpable())\n")  # fmt: skip
    (inst.root / "site_src" / "helper.py").write_text("")  # the guard refuses: the build stops early
    done = subprocess.run([sys.executable, "-c", code, str(inst.root), str(tmp_path / "site"), str(identity_file(inst))],
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.stdout.split() == ["UnsafeSiteError", "dumpable", "False"], (done.stdout, done.stderr[-2000:])


# --- both real generators, guard bypassed: the wall behind it ----------------------------------

FOOTER = '<footer>{% include "IDENTITY" %}</footer>\n'


def small_site(inst: Instance, generator_name: str, *, footer: str | None = None, slugify: str | None = None) -> tuple[Path, Path]:
    """A staged tree as render_site leaves it, small: one page, Sealboard's theme folder, a
    generated config; optionally a hostile footer partial or a toc slugify naming docs.helper."""
    staged = staged_tree(inst)
    (staged / "docs" / "helper.py").write_text(
        f"def evil(**kwds):\n    open({str(inst.root / 'pwned')!r}, 'w').write('x')\n    return lambda text, sep: text\n"
    )
    (staged / "overrides" / "partials").mkdir(parents=True)
    if footer is not None:
        (staged / "overrides" / "partials" / "footer.html").write_text(footer)
    site_dir = staged / "site-build" if generator_name == "zensical" else inst.root / "site-out"
    config = {"site_name": "Board", "docs_dir": "docs", "site_dir": str(site_dir), "use_directory_urls": False,
              "theme": {"name": "material", "custom_dir": "overrides", "font": False}, "plugins": [],
              "markdown_extensions": [{"toc": {"slugify": {"object": slugify, "kwds": {}}}} if slugify else "toc"]}  # fmt: skip
    (staged / "mkdocs.yml").write_bytes(orjson.dumps(config))
    return staged / "mkdocs.yml", site_dir


GENERATORS = [
    pytest.param(g, marks=pytest.mark.skipif(importlib.util.find_spec(g) is None, reason=f"{g} is not installed"))
    for g in generator.GENERATORS
]


@pytest.mark.slow
@needs_landlock
@pytest.mark.parametrize("name", GENERATORS)
def test_control_a_small_staged_site_builds_confined(name: str, inst: Instance) -> None:
    config, site_dir = small_site(inst, name)
    generator.run_generator(name, config, site_dir, 1)
    assert "Public text." in (site_dir / "index.html").read_text()


@pytest.mark.slow
@needs_landlock
@pytest.mark.parametrize("how", ["absolute", "relative"])
@pytest.mark.parametrize("name", GENERATORS)
def test_a_partial_cannot_include_the_identity_past_the_guard(name: str, how: str, inst: Instance, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = identity_file(inst)
    target = str(secret) if how == "absolute" else "../../../keys/identity.txt"  # from .sealboard/staged/overrides/
    config, site_dir = small_site(inst, name, footer=FOOTER.replace("IDENTITY", target))
    monkeypatch.setenv("SEALBOARD_IDENTITY", CANARY)
    with pytest.raises(BuilderError) as caught:
        generator.run_generator(name, config, site_dir, 1)
    assert caught.value.reason == "site-generator"
    # mkdocs' Jinja loader refuses the name; Zensical's reads the path, and Landlock refuses it.
    assert ("Permission denied" in caught.value.message) if name == "zensical" else ("TemplateNotFound" in caught.value.message), (
        caught.value.message
    )
    published = b"".join(p.read_bytes() for p in site_dir.rglob("*") if p.is_file()) if site_dir.exists() else b""
    for text in (caught.value.message.encode(), published):
        assert b"AGE-SECRET-KEY" not in text.upper()


@pytest.mark.slow
@needs_landlock
def test_zensical_cannot_import_a_helper_from_the_staged_tree_past_the_guard(inst: Instance) -> None:
    config, site_dir = small_site(inst, "zensical", slugify="docs.helper.evil")
    with pytest.raises(BuilderError) as caught:
        generator.run_generator("zensical", config, site_dir, 1)
    assert caught.value.reason == "site-generator" and "No module named 'docs'" in caught.value.message, caught.value.message
    assert not (inst.root / "pwned").exists()
