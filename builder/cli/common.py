"""Shared CLI plumbing: error translation and progress output."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from builder.errors import BuilderError

F = TypeVar("F", bound=Callable[..., Any])


def translate_errors(func: F) -> F:
    """Show a BuilderError as one clear line (what, where, hint) and exit 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except BuilderError as exc:
            raise click.ClickException(str(exc)) from None

    return wrapper  # type: ignore[return-value]


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
