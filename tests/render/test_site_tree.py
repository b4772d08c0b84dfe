"""The generated site config (builder/render/site_tree.py): what Sealboard fixes whatever the
instance's mkdocs.yml asks."""

from __future__ import annotations

from pathlib import Path

from builder.demo.instance import MKDOCS_YML
from builder.render.site_tree import HTML_RENDERING_FEATURES, generated_config


def _config(tmp_path: Path, features: list[str]) -> dict:
    listed = "".join(f"    - {f}\n" for f in features)
    (tmp_path / "mkdocs.yml").write_text(MKDOCS_YML.replace("  features:\n", "  features:\n" + listed, 1))
    staged = tmp_path / "staged"
    staged.mkdir()
    return generated_config(tmp_path, staged, "mkdocs", "site")


def test_material_tooltips_are_left_out_whatever_the_instance_asks(tmp_path: Path) -> None:
    # Material renders a tooltip's title as HTML, and copies truncated page titles (lab text) into titles.
    features = _config(tmp_path, ["content.tooltips", "search.highlight"])["theme"]["features"]
    assert not HTML_RENDERING_FEATURES & set(features), features
    # Control: the instance's other features are kept, in order.
    assert features == [
        "search.highlight",
        "navigation.tabs",
        "navigation.sections",
        "navigation.prune",
        "navigation.top",
        "search.suggest",
    ]
