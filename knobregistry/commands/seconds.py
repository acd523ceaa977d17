"""A duration on the command line: a finite number of seconds above 0."""

from __future__ import annotations

import math

import click


def seconds(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    """An option's callback: ``value`` as seconds; `nan`, `inf`, 0 and negative numbers are
    refused (a `nan` timeout never expires)."""
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or number <= 0:
        raise click.BadParameter(
            f"{value} is not a number of seconds above 0 (a finite one, such as 600).", ctx, param
        )
    return number
