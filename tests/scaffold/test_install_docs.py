"""Labs and maintainers are told to install Sealboard the way the leaderboard's CI does
(issue 42, item 5, its documentation): the commands on the labs page, in the scaffold's
README and in `sealboard init`'s output are the scaffolded workflows' own install lines, and
no page sends anyone to a package index for Sealboard or links to a package-index name."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
SCAFFOLD = ROOT / "builder/scaffold/files"


def workflow_install_lines() -> list[str]:
    wf = yaml.safe_load((SCAFFOLD / "workflows/build.yml").read_text())
    step = next(s for s in wf["jobs"]["build"]["steps"] if s.get("name", "").startswith("Install Sealboard"))
    return [line.strip() for line in step["run"].splitlines() if line.strip().startswith("python -m pip install")]


def test_the_docs_show_exactly_the_workflows_install_lines():
    lines = workflow_install_lines()
    assert lines == [
        "python -m pip install --require-hashes --no-deps -r requirements/build.txt",
        "python -m pip install --require-hashes --no-deps --no-index -r requirements/sealboard.txt",
    ]
    init_cli = (ROOT / "builder/cli/init.py").read_text()
    for name, text in (
        ("labs.md", (ROOT / "builder/render/site_template/docs/labs.md").read_text()),
        ("scaffold README.md", (SCAFFOLD / "README.md").read_text()),
        ("cli/init.py", init_cli),
    ):
        for line in lines:
            assert line in text, f"{name} does not show: {line}"


def test_no_page_sends_anyone_to_a_package_index_for_sealboard():
    texts = {
        p: p.read_text(encoding="utf-8")
        for base in ("builder", "README.md", "ARCHITECTURE.md")
        for p in ([ROOT / base] if base.endswith(".md") else (ROOT / base).rglob("*"))
        if p.is_file() and p.suffix in (".md", ".j2", ".py", ".yaml", ".yml", ".html")
    }
    assert len(texts) > 50
    for path, text in texts.items():
        assert "pypi.org/project/sealboard" not in text.lower(), path
        for m in re.finditer(r"pip install '?sealboard(\[[a-z,]+\])?'?", text):
            sentence = text[max(0, m.start() - 120) : m.start()]
            assert "never" in sentence.lower(), f"{path.relative_to(ROOT)}: {text[m.start() - 40 : m.end() + 20]!r}"
