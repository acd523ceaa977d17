"""Functions and lambdas as scopes: their node types and parameters."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

ScopeNode = cst.FunctionDef | cst.Lambda


def param_list(params: cst.Parameters) -> list[cst.Param]:
    """The parameters of a signature in declaration order."""
    found = [*params.posonly_params, *params.params]
    if isinstance(params.star_arg, cst.Param):
        found.append(params.star_arg)
    found.extend(params.kwonly_params)
    if params.star_kwarg is not None:
        found.append(params.star_kwarg)
    return found


def body_statements(
    body: cst.BaseSuite,
) -> Sequence[cst.BaseStatement | cst.BaseSmallStatement]:
    """The statements of an indented block or of a one-line suite."""
    if isinstance(body, cst.IndentedBlock):
        return body.body
    if isinstance(body, cst.SimpleStatementSuite):
        return body.body
    return ()


def sole_return(function: cst.FunctionDef) -> cst.BaseExpression | None:
    """What a function whose body is one ``return`` (after a docstring) returns; None for
    any other body."""
    statements = [
        s
        for s in body_statements(function.body)
        if not (
            isinstance(s, cst.SimpleStatementLine)
            and isinstance(s.body[0], cst.Expr)
            and isinstance(s.body[0].value, cst.SimpleString)
        )
    ]
    if (
        len(statements) == 1
        and isinstance(statements[0], cst.SimpleStatementLine)
        and isinstance(statements[0].body[0], cst.Return)
    ):
        return statements[0].body[0].value
    return None
