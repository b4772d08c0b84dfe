"""Shared CLI plumbing: error translation and progress output."""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import click

from builder.errors import BuilderError

F = TypeVar("F", bound=Callable[..., Any])
P = ParamSpec("P")
R = TypeVar("R")


def translate_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Show a BuilderError as one clear line (what, where, hint) and exit 1."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except BuilderError as exc:
            raise click.ClickException(str(exc)) from None

    return wrapper


def progress(message: str) -> None:
    click.echo(message, err=True)


def root_option(func: F) -> F:
    return click.option(
        "--root",
        type=click.Path(file_okay=False, path_type=Path),
        default=".",
        show_default=True,
        help="The leaderboard repository.",
    )(func)


class UtcTime(click.ParamType):
    """Every command's time option: YYYY-MM-DD (midnight UTC) or YYYY-MM-DDTHH:MM:SSZ, the
    same for keys, release and build --as-of. The files keep the full form."""

    name = "TIME"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> datetime:
        if isinstance(value, datetime):
            return value
        for fmt in ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%d"):
            try:
                return datetime.strptime(value, fmt).replace(tzinfo=timezone.utc)
            except ValueError:
                pass
        self.fail(f"{value!r} is not a UTC time like 2027-06-30 or 2027-06-30T00:00:00Z", param, ctx)


TIME = UtcTime()
