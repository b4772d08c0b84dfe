"""Every reason code Sealboard raises is published, with who raises it and what to do.

The codes are collected from the source: a ``reason=`` keyword, a ``reason = …`` class
attribute (the error tree's defaults) and a ``Rejection(where, reason, …)`` or site guard
``Finding(where, reason, …)`` argument.
Codes built from a template (``f"{stage}-failed"``) are expanded here by hand, so a new
template fails the test until its expansions are listed.
"""

from __future__ import annotations

import ast
from pathlib import Path

from builder.render.reasons import load_reasons, reasons_page

BUILDER = Path(__file__).resolve().parent.parent / "builder"

# Codes made from a template, and every value the template takes.
TEMPLATED = {
    "{stage}-failed": {"unseal-failed", "score-failed", "render-failed"},
    "unknown-{what}": {"unknown-lab", "unknown-maintainer"},
}


def _codes_in_source() -> tuple[set[str], set[str]]:
    codes: set[str] = set()
    templates: set[str] = set()
    for path in BUILDER.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            values: list[ast.expr] = []
            if isinstance(node, ast.keyword) and node.arg == "reason":
                values.append(node.value)
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "reason" for t in node.targets):
                values.append(node.value)
            elif (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", getattr(node.func, "attr", None)) in ("Rejection", "Finding")
                and len(node.args) >= 2
            ):
                values.append(node.args[1])  # Rejection(where, reason, …); the site guard's Finding(where, reason, …)
            for value in values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    codes.add(value.value)
                elif isinstance(value, ast.JoinedStr):
                    templates.add(
                        "".join(v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}" for v in value.values)
                    )
    return codes, templates


def test_every_code_raised_is_listed_and_nothing_stale():
    codes, templates = _codes_in_source()
    assert templates <= set(TEMPLATED), f"list the values of these templated codes in TEMPLATED: {sorted(templates - set(TEMPLATED))}"
    for template in templates:
        codes |= TEMPLATED[template]
    listed = set(load_reasons())
    assert sorted(codes - listed) == [], "add these codes to builder/reasons.yaml"
    assert sorted(listed - codes) == [], "these codes in builder/reasons.yaml are raised nowhere"


def test_each_entry_says_who_and_what_to_do():
    for code, entry in load_reasons().items():
        assert entry.raised_by.strip(), code
        assert entry.fix.strip() and "TODO" not in entry.fix, code


def test_page_is_one_table_with_every_code_escaped():
    page = reasons_page()
    reasons = load_reasons()
    assert page.count("<tr") == len(reasons) + 1  # header row + one per code
    for code in reasons:
        assert f'id="{code}"' in page and f"<code>{code}</code>" in page
    assert "<script" not in page
