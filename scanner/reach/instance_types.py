"""The tree's class an object is an instance of, where the code says so.

``self`` in a method of the class; a parameter or local annotated with it (``adapter_data:
"AdapterBatchData"``, ``Optional[C]``, ``C | None``); a local bound only to its constructor;
and a field of such an object, where its class declares the field's class (``punica_wrapper:
"PunicaWrapper"`` in a dataclass's body) or every binding of ``self.field`` constructs one or
takes an annotated parameter (predibase/lorax a7394ba server/lorax_server/utils/layers.py:70-96,
adapters/weights.py:108-118). Anything else (a call's result, an unannotated parameter, a name
bound by a loop) is not known: None.
"""

from __future__ import annotations

import ast

from scanner.reach.modules import Module, Tree

MAX_HOPS = 3  # fields of fields an object's class is followed through
_OPTIONAL = frozenset({"typing.Optional"})
Function = ast.FunctionDef | ast.AsyncFunctionDef


def class_of(module: Module, node: ast.expr, tree: Tree, hops: int = 0) -> str | None:
    """The dotted name of the tree's class ``node`` is an instance of, where the code says:
    ``self`` in a method, an annotated parameter or local, a local bound only to the class's
    constructor, a field the holder's class declares or binds so; None otherwise."""
    if isinstance(node, ast.Name):
        function = module.function_node_around(node)
        if function is None:
            return None
        if node.id == "self":
            return _own_class(module, function)
        return _local_class(module, function, node.id, tree)
    if isinstance(node, ast.Attribute) and hops < MAX_HOPS:
        here = _bound_here(module, node, tree)
        if here is not None:
            return here
        holder = class_of(module, node.value, tree, hops + 1)
        return field_class(holder, node.attr, tree) if holder is not None else None
    return None


def _bound_here(module: Module, node: ast.Attribute, tree: Tree) -> str | None:
    """The class of ``obj.attr`` where the function using it binds that same target, and
    only to one class's constructor (``m.mla_preprocess = NPUFusedMLAPreprocess(...)``, then
    ``m.mla_preprocess.forward(...)``: sglang 0.5.23 srt/hardware_backend/npu/modules/
    deepseek_v2_attention_mla_npu.py:175-198)."""
    function = module.function_node_around(node)
    if function is None:
        return None
    target = ast.unparse(node)
    classes = {
        _value_class(module, statement.value, tree)
        for statement in ast.walk(function)
        if isinstance(statement, ast.Assign)
        and any(
            isinstance(t, ast.Attribute) and t.attr == node.attr and ast.unparse(t) == target
            for t in statement.targets
        )
    }
    classes.discard(_NONE)
    return classes.pop() if len(classes) == 1 else None


def field_class(holder: str, attr: str, tree: Tree) -> str | None:
    """The class of field ``attr`` of class ``holder``'s instances: the annotation its body
    gives it (``punica_wrapper: "PunicaWrapper"``), or the one class every binding of
    ``self.attr`` in its methods constructs or takes from an annotated parameter."""
    split = tree.split(holder)
    node = split[0].definitions.get(split[1]) if split is not None else None
    if split is None or not isinstance(node, ast.ClassDef):
        return None
    module, local = split
    declared = [
        s.annotation
        for s in node.body
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == attr
    ]
    if declared:
        classes = {annotated_class(module, a, tree) for a in declared}
    else:  # bound in the methods (``None`` left out: no object yet)
        classes = {_value_class(module, v, tree) for v in module.attribute_values(local, attr)}
    return classes.pop() if len(classes) == 1 else None


def annotated_class(module: Module, annotation: ast.expr, tree: Tree) -> str | None:
    """The tree's class an annotation names (``C``, ``"C"``, ``Optional[C]``, ``C | None``)."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value.strip(), mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.Subscript) and _optional(module, annotation.value, tree):
        return annotated_class(module, annotation.slice, tree)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = [annotation.left, annotation.right]
        others = [s for s in sides if not (isinstance(s, ast.Constant) and s.value is None)]
        return annotated_class(module, others[0], tree) if len(others) == 1 else None
    return _class_named(module, annotation, tree)


_NONE = "None"  # what ``_value_class`` gives a binding of None: no instance, no other class


def _value_class(module: Module, value: ast.expr, tree: Tree) -> str | None:
    """The class a bound value is an instance of: its constructor's, or the annotation of
    the parameter it is (``self.w = w`` with ``w: W``); ``_NONE`` for None."""
    if isinstance(value, ast.Constant) and value.value is None:
        return _NONE
    if isinstance(value, ast.Call):
        return _class_named(module, value.func, tree)
    if isinstance(value, ast.Name):
        function = module.function_node_around(value)
        if function is None:
            return None
        annotation = _parameter_annotation(function, value.id)
        if annotation is not None and not _rebound(module, function, value.id):
            return annotated_class(module, annotation, tree)
    return None


def _own_class(module: Module, scope: Function) -> str | None:
    """The class whose method binds ``self`` (the first parameter of a method defined in a
    class body; a nested function sees its method's)."""
    function: Function | None = scope
    while function is not None:
        arguments = [*function.args.posonlyargs, *function.args.args]
        if arguments and arguments[0].arg == "self":
            if not isinstance(module.parent(function), ast.ClassDef):
                return None
            return module.owner_class(function)
        if any(a.arg == "self" for a in (*arguments, *function.args.kwonlyargs)):
            return None
        function = module.function_node_around(function)
    return None


def _local_class(module: Module, function: Function, name: str, tree: Tree) -> str | None:
    """The class of the local or parameter ``name`` of ``function``: every binding of it
    (its parameter's annotation, an annotated or plain assignment) names the same one."""
    classes: set[str | None] = set()
    annotation = _parameter_annotation(function, name)
    if annotation is not None:
        classes.add(annotated_class(module, annotation, tree))
    elif _is_parameter(function, name):
        return None
    for statement in module.name_stores(function).get(name, ()):
        if statement is None:
            return None  # bound by a loop, a ``with``, an import, ...: not known
        if isinstance(statement, ast.AnnAssign):
            classes.add(annotated_class(module, statement.annotation, tree))
        elif statement.value is not None:
            classes.add(_value_class(module, statement.value, tree))
    classes.discard(_NONE)
    return classes.pop() if len(classes) == 1 else None


def _rebound(module: Module, function: Function, name: str) -> bool:
    return name in module.name_stores(function)


def _parameter_annotation(function: Function, name: str) -> ast.expr | None:
    arguments = function.args
    for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
        if argument.arg == name:
            return argument.annotation
    return None


def _is_parameter(function: Function, name: str) -> bool:
    arguments = function.args
    every = (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
    extra = [a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return any(a.arg == name for a in every) or name in extra


def _optional(module: Module, node: ast.expr, tree: Tree) -> bool:
    """Whether ``node`` names ``typing.Optional`` (imported, or through a re-export)."""
    dotted = _dotted(module, node)
    return dotted is not None and tree.reexported(dotted) in _OPTIONAL


def _class_named(module: Module, node: ast.expr, tree: Tree) -> str | None:
    """The dotted name of the tree's class ``node`` names in ``module``, or None."""
    dotted = _dotted(module, node)
    split = tree.split(tree.reexported(dotted)) if dotted is not None else None
    if split is None or not isinstance(split[0].definitions.get(split[1]), ast.ClassDef):
        return None
    return split[0].qualified(split[1])


def _dotted(module: Module, node: ast.expr) -> str | None:
    """What a module-level name (``C``, ``mod.C``) refers to, as its module binds it."""
    if isinstance(node, ast.Name):
        if node.id in module.imports:
            return module.imports[node.id]
        if node.id in module.definitions:
            return module.qualified(node.id)
        return None
    if isinstance(node, ast.Attribute):
        base = _dotted(module, node.value)
        return f"{base}.{node.attr}" if base is not None else None
    return None
