"""The page environment finds a plain dict's keys as Jinja's own lookup does, without its exception."""

from __future__ import annotations

from collections import OrderedDict

import pytest
from jinja2 import Environment, StrictUndefined, UndefinedError

from builder.render.page_templates import page_environment

ENV = page_environment("builder.render")
STOCK = Environment(undefined=StrictUndefined)


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ("{{ d.model }}", {"model": "m<1>"}),  # a key
        ("{{ d.items() | list }}", {"items": 3, "a": 1}),  # a dict method shadows a key of its name, as in Jinja
        ("{{ d.get('a') }}", {"get": 1, "a": 2}),
        ("{{ d['items'] }}", {"items": 3}),  # subscript still reaches it
        ("{{ d.a.b }}", {"a": {"b": 0}}),
        ("{{ d.a }}", OrderedDict(a=1)),  # a dict subclass: Jinja's own lookup
        ("{{ d.upper() }}", "text"),
    ],
)
def test_same_as_jinja(source: str, value: object) -> None:
    assert ENV.from_string(source).render(d=value) == STOCK.from_string(source).render(d=value)


def test_a_missing_key_is_strictly_undefined() -> None:
    with pytest.raises(UndefinedError, match="has no attribute 'missing'"):
        ENV.from_string("{{ d.missing }}").render(d={"a": 1})
