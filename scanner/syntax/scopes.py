"""Functions and lambdas as scopes: their node types and parameters."""

from __future__ import annotations

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
