"""A duration on the command line: a finite number of seconds (above 0, or 0 and above)."""

from __future__ import annotations

import math

import click


def seconds(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    """An option's callback: ``value`` as seconds; `nan`, `inf`, 0 and negative numbers are
    refused (a `nan` timeout never expires)."""
    return _duration(ctx, param, value, zero=False)


def seconds_or_zero(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    """As `seconds`, with 0 allowed (a wait that may be none)."""
    return _duration(ctx, param, value, zero=True)


def _duration(
    ctx: click.Context, param: click.Parameter, value: str | None, *, zero: bool
) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or number < 0 or (number == 0 and not zero):
        bound = "of 0 or above" if zero else "above 0"
        raise click.BadParameter(
            f"{value} is not a number of seconds {bound} (a finite one, such as 600).", ctx, param
        )
    return number
