"""The Python modules of a scanned tree, read with ``ast`` when a gate's branches reach them.

The analysis of reads parses only files that can hold one, and only the statements that
matter; what a gate switches between lives anywhere in the tree (a Triton kernel in a
module with no environment read). ``Tree`` parses a module the first time a branch
reaches it, with the standard library's parser, and says what its names refer to.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from scanner.reach.extensions import declared_extensions, extension_of, is_build_script
from scanner.reach.locate import Locator, Tested
from scanner.reach.package_aliases import loaded_directory
from scanner.reach.scopes import Scopes
from scanner.source.ast_walk import walk
from scanner.source.files import SourceError, decode_source, read_bytes
from scanner.source.kept_classes import enum_members
from scanner.syntax.namespace import resolve_relative

MAX_MODULE_BYTES = 4 * 1024 * 1024  # a larger module is generated code, not a kernel's
Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


@dataclass(slots=True)
class Module:
    """One parsed module: its tree, what its names refer to, and its definitions."""

    rel: str
    name: str
    tree: ast.Module
    lines: list[str]
    imports: dict[str, str] = field(default_factory=dict)  # local name -> dotted target
    definitions: dict[str, Definition] = field(default_factory=dict)  # "f", "C", "C.m"
    globals: frozenset[str] = frozenset()  # names bound at module level
    # Names imported inside functions (``from .kernels import fused`` in a branch), taken
    # when no module-level name has them.
    local_imports: dict[str, str] = field(default_factory=dict)
    # Module names bound to an expression (``jit_fuser = lazy_compile`` under a test): what
    # calling the name may call.
    aliases: dict[str, list[ast.expr]] = field(default_factory=dict)
    # Module names bound once to a tuple, list or set of strings (``_BACKENDS = (...)``).
    strings: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The modules a module-level ``from pkg.mod import *`` takes every public name of.
    stars: list[str] = field(default_factory=list)
    _locator: Locator | None = None
    _scopes: Scopes | None = None  # the names each function binds for itself (read once)
    _tests: dict[int, dict[str, list[ast.expr]]] = field(default_factory=dict)
    _local_strings: dict[int, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    _arguments: dict[int, dict[str, list[tuple[ast.Call, str | int]]]] = field(default_factory=dict)
    _keyed: dict[int, dict[str, list[ast.Assign]]] = field(default_factory=dict)
    _walked: dict[int, tuple[ast.AST, ...]] = field(default_factory=dict)
    _attributes: dict[str, dict[str, list[ast.expr]]] = field(default_factory=dict)
    _bindings: dict[int, dict[str, list[ast.expr]]] = field(default_factory=dict)
    _stores: dict[int, dict[str, list[ast.Assign | ast.AnnAssign | None]]] = field(
        default_factory=dict
    )
    _kept_on_self: dict[int, dict[str, list[tuple[int, str]]]] = field(default_factory=dict)
    _set_to_none: dict[int, tuple[frozenset[str], frozenset[str]]] = field(default_factory=dict)
    _leaves: dict[int, bool] = field(default_factory=dict)
    # The names each function's own imports bind (by the function's id): two functions may
    # bind one name to two modules (``import aiter as ops``, ``import pkg.rope as ops``).
    _imported_in: dict[int, dict[str, str]] = field(default_factory=dict)
    # The classes whose methods set ``self.NAME`` to True or False, by NAME (one walk).
    _flag_classes: dict[str, list[str]] | None = None
    # The classes whose methods bind ``self.NAME`` to a ``threading.Event()``, by NAME.
    _event_classes: dict[str, list[str]] | None = None
    # The names some statement binds to a bare name (``_sw = _MOD``), found in one walk.
    _renamed: frozenset[str] | None = None
    # ``obj.name`` for each ``getattr(obj, "name")`` a local is bound to (by the call's id).
    _got: dict[int, ast.Attribute] = field(default_factory=dict)
    # What ``resolve`` gave each node (kept with it) for each owner, once the index that
    # it reads is complete (``_index`` resolves while it fills it).
    _resolved: dict[tuple[int, str | None], tuple[ast.expr, str | None]] = field(
        default_factory=dict
    )
    _indexed: bool = False
    # Follows a dotted name through the tree's re-exports (``vllm.triton_utils.triton.jit`` is
    # ``triton.jit``): set by the Tree that parsed the module.
    reexported: Callable[[str], str] = field(default=lambda dotted: dotted, repr=False)
    # Whether a dotted name lies in a module of the tree (never a library's entry point then).
    in_tree: Callable[[str], bool] = field(default=lambda dotted: False, repr=False)
    # The CUDA extension of the tree's own build a dotted name lies in, with where it is
    # declared (scanner.reach.extensions), or None.
    extension: Callable[[str], tuple[str, str] | None] = field(
        default=lambda dotted: None, repr=False
    )
    # The value of an int or str enumeration's member of the tree (``pkg.env.Mode.OFF``).
    enum_member: Callable[[str], object] = field(default=lambda dotted: None, repr=False)
    _members: dict[str, object] = field(default_factory=dict)

    def member(self, name: str) -> object:
        """``Mode.OFF``, where ``Mode`` is an int or str enumeration this module defines or
        imports from the tree: the value the member equals; None otherwise."""
        if name not in self._members:
            head, _, attr = name.partition(".")
            if head in self.definitions:
                self._members[name] = self.enum_member(f"{self.name}.{head}.{attr}")
            elif head in self.imports:
                self._members[name] = self.enum_member(f"{self.imports[head]}.{attr}")
            else:
                self._members[name] = None
        return self._members[name]

    def attribute_values(self, cls: str, attr: str) -> list[ast.expr]:
        """The values the methods of class ``cls`` (its local name) bind to ``self.attr``
        (``self._gemm = functools.partial(gemm, ...)`` in ``__init__``), but ``None``
        (nothing bound yet)."""
        bound = self._attributes.get(cls)
        if bound is None:
            bound = self._attributes[cls] = {}
            node = self.definitions.get(cls)
            for statement in self.walked(node) if isinstance(node, ast.ClassDef) else ():
                if not isinstance(statement, ast.Assign) or (
                    isinstance(statement.value, ast.Constant) and statement.value.value is None
                ):
                    continue
                for target in statement.targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                    ):
                        bound.setdefault(target.attr, []).append(statement.value)
        return bound.get(attr, [])

    def local_bindings(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> dict[str, list[ast.expr]]:
        """The values each local name of ``function`` is assigned (``x = f()``), read once."""
        found = self._bindings.get(id(function))
        if found is None:
            found = self._bindings[id(function)] = {}
            for statement in self.walked(function):
                if isinstance(statement, ast.Assign):
                    targets, value = statement.targets, statement.value
                elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                    targets, value = [statement.target], statement.value
                else:
                    continue
                for target in targets:
                    if isinstance(target, ast.Name):
                        found.setdefault(target.id, []).append(value)
        return found

    def name_stores(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> Mapping[str, list[ast.Assign | ast.AnnAssign | None]]:
        """Each binding of a name in ``function`` (nested code included), by the name: the
        assignment whose target the name is, or None for any other (a loop, ``with``, an
        unpacking, ``global``), read once."""
        found = self._stores.get(id(function))
        if found is None:
            found = self._stores[id(function)] = {}
            for node in self.walked(function):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    statement = self.parent(node)
                    if not (
                        (isinstance(statement, ast.AnnAssign) and statement.target is node)
                        or (
                            isinstance(statement, ast.Assign)
                            and any(t is node for t in statement.targets)
                        )
                    ):
                        statement = None
                    found.setdefault(node.id, []).append(statement)
                elif isinstance(node, ast.Global | ast.Nonlocal):
                    for name in node.names:
                        found.setdefault(name, []).append(None)
        return found

    def kept_on_self(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> Mapping[str, list[tuple[int, str]]]:
        """The locals ``function`` keeps on the object (``self.use_x = use_x``), by the
        local's name: the line of each such statement and the attribute, in the order of
        ``ast.walk`` (one walk, kept)."""
        known = self._kept_on_self.get(id(function))
        if known is None:
            known = self._kept_on_self[id(function)] = {}
            for node in self.walked(function):
                if (
                    isinstance(node, ast.Assign)
                    and isinstance(node.value, ast.Name)
                    and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Attribute)
                    and isinstance(node.targets[0].value, ast.Name)
                    and node.targets[0].value.id == "self"
                ):
                    known.setdefault(node.value.id, []).append((node.lineno, node.targets[0].attr))
        return known

    def leaves(self, statement: ast.stmt) -> bool:
        """Whether a ``return`` or a ``raise`` sits in ``statement`` (one walk, kept)."""
        known = self._leaves.get(id(statement))
        if known is None:
            known = self._leaves[id(statement)] = any(
                isinstance(n, ast.Return | ast.Raise) for n in walk(statement)
            )
        return known

    def set_to_none(self, scope: ast.AST) -> tuple[frozenset[str], frozenset[str]]:
        """The names and the ``self.`` attributes an assignment under ``scope`` sets to
        None (``x = None``, ``self.comm: C | None = None``), one walk, kept."""
        known = self._set_to_none.get(id(scope))
        if known is None:
            names: set[str] = set()
            attributes: set[str] = set()
            for node in walk(scope):
                if not isinstance(node, ast.Assign | ast.AnnAssign):
                    continue
                if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                    continue
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Name):
                        names.add(target.id)
                    elif (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                    ):
                        attributes.add(target.attr)
            known = self._set_to_none[id(scope)] = (frozenset(names), frozenset(attributes))
        return known

    @property
    def locate(self) -> Locator:
        """Lookups of nodes by line (see ``scanner.reach.locate``)."""
        if self._locator is None:
            self._locator = Locator(self.tree, self.lines)
        return self._locator

    def parent(self, node: ast.AST) -> ast.AST | None:
        """The node ``node`` sits in (None for the module)."""
        return self.locate.parent(node)

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        """The nodes around ``node``, innermost first."""
        return self.locate.ancestors(node)

    def tests_naming(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> Mapping[str, list[ast.expr]]:
        """The tests of ``function`` (``if``, ``while``, ternaries) by the names they load:
        one walk of the function, kept."""
        known = self._tests.get(id(function))
        if known is None:
            found: dict[str, list[ast.expr]] = {}
            for node in self.walked(function):
                if isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert):
                    names = {n.id for n in walk(node.test) if isinstance(n, ast.Name)}
                    for name in names:
                        found.setdefault(name, []).append(node.test)
            known = self._tests[id(function)] = found
        return known

    def arguments_passing(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> Mapping[str, list[tuple[ast.Call, str | int]]]:
        """The calls in ``function`` that hand a local on as an argument, by the local's
        name, with the keyword or the position it is passed at (one walk, kept)."""
        known = self._arguments.get(id(function))
        if known is None:
            found: dict[str, list[tuple[ast.Call, str | int]]] = {}
            for node in self.walked(function):
                if not isinstance(node, ast.Call):
                    continue
                for position, argument in enumerate(node.args):
                    if isinstance(argument, ast.Name):
                        found.setdefault(argument.id, []).append((node, position))
                for keyword in node.keywords:
                    if keyword.arg is not None and isinstance(keyword.value, ast.Name):
                        found.setdefault(keyword.value.id, []).append((node, keyword.arg))
            known = self._arguments[id(function)] = found
        return known

    @property
    def scopes(self) -> Scopes:
        """The names each function binds for itself, and every node of the module."""
        if self._scopes is None:
            self._scopes = Scopes(self.tree)
        return self._scopes

    def walked(self, scope: ast.AST) -> tuple[ast.AST, ...]:
        """Every node under ``scope``, in ``ast.walk`` order (one walk per scope, kept)."""
        if scope is self.tree:
            return self.scopes.nodes
        known = self._walked.get(id(scope))
        if known is None:
            known = self._walked[id(scope)] = tuple(walk(scope))
        return known

    def keyed_stores(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> Mapping[str, list[ast.Assign]]:
        """The statements in ``function`` that store a value under a string key
        (``flash_kwargs["deterministic"] = x``), by the key (one walk, kept)."""
        known = self._keyed.get(id(function))
        if known is None:
            found: dict[str, list[ast.Assign]] = {}
            for node in self.walked(function):
                if (
                    isinstance(node, ast.Assign)
                    and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Subscript)
                    and isinstance(node.targets[0].slice, ast.Constant)
                    and isinstance(node.targets[0].slice.value, str)
                ):
                    found.setdefault(node.targets[0].slice.value, []).append(node)
            known = self._keyed[id(function)] = found
        return known

    def local_strings(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> Mapping[str, tuple[str, ...]]:
        """The locals of ``function`` bound to a literal tuple, list or set of strings."""
        known = self._local_strings.get(id(function))
        if known is not None:
            return known
        found: dict[str, tuple[str, ...]] = {}
        self._local_strings[id(function)] = found
        for node in self.walked(function):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                strings = _string_items(node.value)
                if isinstance(target, ast.Name) and strings is not None:
                    found[target.id] = strings
        return found

    def tests_near(self, line: int) -> list[Tested]:
        """The ``if``, ``while`` and ternary nodes whose test spans ``line``."""
        return self.locate.tests_at(line)

    def calls_named(self, short: str) -> list[ast.Call]:
        """The calls of a function named ``short`` (``f()``, ``x.f()``)."""
        return [
            n
            for n in self.locate.mentioning(short)
            if isinstance(n, ast.Call) and _short(n.func) == short
        ]

    def loads_named(self, name: str) -> list[ast.Name | ast.Attribute]:
        """Loads of ``name`` (a bare name, or an attribute ``x.name``)."""
        return [
            n
            for n in self.locate.mentioning(name)
            if isinstance(n, ast.Name | ast.Attribute)
            and isinstance(n.ctx, ast.Load)
            and _short(n) == name
        ]

    def flag_classes(self, attr: str) -> list[str]:
        """The classes of this module whose methods set ``self.attr`` to True or False."""
        if self._flag_classes is None:
            self._flag_classes = self._binding_classes(
                lambda value: isinstance(value, ast.Constant) and isinstance(value.value, bool)
            )
        return self._flag_classes.get(attr, [])

    def event_classes(self, attr: str) -> list[str]:
        """The classes of this module whose methods bind ``self.attr`` to a
        ``threading.Event()``."""
        if self._event_classes is None:
            self._event_classes = self._binding_classes(
                lambda value: (
                    isinstance(value, ast.Call)
                    and self.resolve_api(value.func) == "threading.Event"
                )
            )
        return self._event_classes.get(attr, [])

    def _binding_classes(self, bound: Callable[[ast.expr], bool]) -> dict[str, list[str]]:
        """By attribute, the classes whose methods bind ``self.attr`` to a value ``bound``
        accepts (one walk of the module)."""
        found: dict[str, list[str]] = {}
        for node in self.walked(self.tree):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(target := node.targets[0], ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
                and bound(node.value)
            ):
                owner = self.owner_class(node)
                classes = found.setdefault(target.attr, [])
                if owner is not None and owner not in classes:
                    classes.append(owner)
        return found

    def attribute_loads(self, name: str) -> list[ast.Attribute]:
        """Loads of ``self.name`` and ``cls.name``."""
        return [
            a
            for a in self.loads_named(name)
            if isinstance(a, ast.Attribute)
            and isinstance(a.value, ast.Name)
            and a.value.id in ("self", "cls")
        ]

    def after(self, statement: ast.stmt) -> tuple[ast.stmt, ...]:
        """The statements after ``statement`` in its block."""
        outer = self.parent(statement)
        for field_name in ("body", "orelse", "finalbody"):
            block = getattr(outer, field_name, None)
            if isinstance(block, list) and statement in block:
                return tuple(block[block.index(statement) + 1 :])
        return ()

    def owner_class(self, node: ast.AST) -> str | None:
        """The dotted name of the class whose method ``node`` sits in."""
        names = []
        for outer in self.ancestors(node):
            if isinstance(outer, ast.ClassDef):
                names.append(outer.name)
            elif isinstance(outer, ast.FunctionDef | ast.AsyncFunctionDef) and names:
                return None  # a class inside a function: not reachable by name
        return self.qualified(".".join(reversed(names))) if names else None

    def owner_class_at(self, line: int) -> str | None:
        """The class of the method that spans ``line``."""
        names = [s.name for s in self.locate.statements_at(line) if isinstance(s, ast.ClassDef)]
        return self.qualified(".".join(names)) if names else None

    def function_at(self, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The function whose ``def`` is on ``line``."""
        return next(
            (
                s
                for s in self.locate.statements_at(line)
                if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.lineno == line
            ),
            None,
        )

    def function_node_around_line(self, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The innermost function that spans ``line``."""
        functions = [
            s
            for s in self.locate.statements_at(line)
            if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)
        ]
        return functions[-1] if functions else None

    def imported_by(self, statement: ast.Import | ast.ImportFrom) -> dict[str, str]:
        """The names ``statement`` binds, and what each refers to."""
        return _imported(self, statement, self.rel.endswith("__init__.py"))

    def function_node_around(self, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The innermost function ``node`` sits in."""
        for outer in self.ancestors(node):
            if isinstance(outer, ast.FunctionDef | ast.AsyncFunctionDef):
                return outer
        return None

    def function_around(self, node: ast.AST) -> str | None:
        """The dotted name of the module-level function or method ``node`` sits in."""
        function = self.function_node_around(node)
        if function is None:
            return None
        names = [function.name]
        for outer in self.ancestors(function):
            if isinstance(outer, ast.ClassDef):
                names.append(outer.name)
            elif isinstance(outer, ast.FunctionDef | ast.AsyncFunctionDef):
                return None
        return self.qualified(".".join(reversed(names)))

    def resolve_api(self, node: ast.expr) -> str | None:
        """``resolve``, followed through the tree's re-exports where the last name is one
        a mark is made of (``triton.jit`` imported through a package of the tree)."""
        found = self.resolve(node)
        if found is not None and found.rsplit(".", 1)[-1] in API_NAMES:
            return self.reexported(found)
        return found

    def qualified(self, local: str) -> str:
        """The dotted name of a definition of this module (``C.m`` -> ``pkg.mod.C.m``)."""
        return f"{self.name}.{local}" if self.name else local

    def resolve(self, node: ast.expr, owner: str | None = None) -> str | None:
        """The dotted name ``node`` refers to (``F.f`` through ``import pkg.f as F``), or
        None when it is no module-level name; ``self.x`` inside class ``owner`` is
        ``owner.x`` (found once per node and owner)."""
        if not self._indexed:
            return self._resolve(node, owner)
        key = (id(node), owner)
        known = self._resolved.get(key)
        if known is not None and known[0] is node:
            return known[1]
        found = self._resolve(node, owner)
        self._resolved[key] = (node, found)
        return found

    def _resolve(self, node: ast.expr, owner: str | None) -> str | None:
        if isinstance(node, ast.Name):
            if self._hidden(node):  # a parameter or local of the function it sits in
                return self._aliased(node, owner)
            target = self.imports.get(node.id)
            if target is not None:
                return target
            if node.id in self.definitions or node.id in self.globals:
                return self.qualified(node.id)
            if node.id in self.local_imports and self._imported_in:
                function = self.function_node_around(node)
                while function is not None:
                    own = self._imported_in.get(id(function), {}).get(node.id)
                    if own is not None:
                        return own
                    function = self.function_node_around(function)
                # Another function's import binds a local of its own, not this name
                # (``fn = getattr(...)`` beside ``from mamba_ssm... import f as fn``).
                return self._imported_in.get(_GLOBAL, {}).get(node.id)
            return self.local_imports.get(node.id) or self._aliased(node, owner)
        if isinstance(node, ast.Attribute):
            if (
                owner is not None
                and isinstance(node.value, ast.Name)
                and node.value.id in ("self", "cls")
            ):
                return f"{owner}.{node.attr}"
            base = self.resolve(node.value, owner)
            return f"{base}.{node.attr}" if base is not None else None
        return None

    def _hidden(self, node: ast.Name) -> bool:
        """Whether the module's name ``node`` spells is hidden where it sits by a name the
        function around it binds for itself (scanner.reach.scopes)."""
        name = node.id
        if name not in self.imports and name not in self.definitions and name not in self.globals:
            return False
        return self.scopes.hides(name, self.ancestors, node)

    def _aliased(self, node: ast.Name, owner: str | None) -> str | None:
        """What a local bound once to a module-level name, or an attribute of one, refers to
        (``_sw = _MOD`` in a function, then ``_sw.f()``: unslothai unsloth_zoo
        temporary_patches/moe_utils.py:2486), also where a nested function calls it
        (``origin = hub_kernels.get_kernel``, called in a closure: modelscope/ms-swift 3602360
        swift/utils/hub_utils.py:215-219)."""
        if self._renamed is None:
            self._renamed = frozenset(
                n.targets[0].id
                for n in self.walked(self.tree)
                if isinstance(n, ast.Assign)
                and len(n.targets) == 1
                and isinstance(n.targets[0], ast.Name)
                and _root_name(self._gotten(n.value)) is not None
            )
        if node.id not in self._renamed:
            return None
        function = self.function_node_around(node)
        while function is not None and node.id not in self.local_bindings(function):
            if node.id in _parameters(function):
                return None
            function = self.function_node_around(function)
        if function is None:
            return None
        values = self.local_bindings(function)[node.id]
        value = self._gotten(values[0]) if len(values) == 1 else None
        root = None if value is None else _root_name(value)
        if value is None or root is None or values[0] is node or root.id == node.id:
            return None
        if self.function_node_around(values[0]) is not function:
            return None  # bound in a nested function
        if root.id in self.local_bindings(function):
            return None  # an alias of another local
        return self.resolve(value, owner)

    def _gotten(self, node: ast.expr) -> ast.expr:
        """``node``, or for ``getattr(obj, "name"[, default])`` the attribute ``obj.name`` it
        gets (``compile_fn = getattr(torch, "compile", None)``: ModelCloud/GPTQModel f4c327a1
        gptqmodel/quantization/paroquant/optimization.py:803), made once per call."""
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and len(node.args) in (2, 3)
            and not node.keywords
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and node.args[1].value.isidentifier()
        ):
            return node
        got = self._got.get(id(node))
        if got is None:
            attribute = ast.Attribute(node.args[0], node.args[1].value, ast.Load())
            got = self._got[id(node)] = ast.copy_location(attribute, node)
        return got

    def column(self, line: int, offset: int) -> int:
        """The 1-based character column of ``ast``'s byte ``offset`` on ``line``."""
        if not 0 < line <= len(self.lines):
            return offset + 1
        text = self.lines[line - 1]
        if text.isascii():
            return offset + 1
        return len(text.encode("utf-8")[:offset].decode("utf-8", "replace")) + 1


# The last names of the library APIs marks are made of: a name ending otherwise is never
# followed through re-exports.
API_NAMES = frozenset(
    {
        "jit",
        "autotune",
        "heuristics",
        "compile",
        "Config",
        "do_bench",
        "do_bench_cudagraph",
        "graph",
        "CUDAGraph",
        "make_graphed_callables",
        "custom_op",
        "triton_op",
        "Library",
        "use_deterministic_algorithms",
        "script",
        "trace",
        "optimize",
        "atomic_add",
        "atomic_max",
        "atomic_min",
        "atomic_cas",
        "atomic_xchg",
        "atomic_and",
        "atomic_or",
        "atomic_xor",
        "index_add",
        "scatter_add",
    }
)
MAX_REEXPORTS = 4


@dataclass(eq=False, slots=True)
class Reads:
    """What the walks for one knob read of the tree: the modules they parsed, and the
    questions they asked of the indexes that span the tree (``(module, name)``: which
    modules may name ``name`` of ``module``, ``""`` for a config key), each once, in the
    order first read, so that a result kept for later knobs can say how much of them it
    was found from."""

    modules: list[str] = field(default_factory=list)
    asked: list[tuple[str, str]] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    _seen_asked: set[tuple[str, str]] = field(default_factory=set)
    _taken: dict[Reads, tuple[int, int]] = field(default_factory=dict)

    def module(self, rel: str) -> None:
        if rel not in self.seen:
            self.seen.add(rel)
            self.modules.append(rel)

    def ask(self, question: tuple[str, str]) -> None:
        if question not in self._seen_asked:
            self._seen_asked.add(question)
            self.asked.append(question)

    def take(self, other: Reads, modules: int, asked: int) -> None:
        """Add the first ``modules`` and ``asked`` of what ``other`` read (a result found
        for another knob, used by this one)."""
        if other is self:
            return
        before = self._taken.get(other, (0, 0))
        if modules <= before[0] and asked <= before[1]:
            return
        for rel in other.modules[before[0] : modules]:
            self.module(rel)
        for question in other.asked[before[1] : asked]:
            self.ask(question)
        self._taken[other] = (max(modules, before[0]), max(asked, before[1]))


class Tree:
    """The tree's Python modules by path and by dotted name, each parsed once, on demand."""

    def __init__(self, files: Mapping[str, tuple[Path, str]]) -> None:
        """``files``: each Python file's path relative to the scan root, with its path on
        disk and its dotted module name."""
        packages = {rel.rpartition("/")[0] for rel in files if rel.endswith("/__init__.py")}
        self._files = {
            rel: (path, _namespace_names(rel, module, packages)[0])
            for rel, (path, module) in files.items()
        }
        self._by_module = {module: rel for rel, (_, module) in self._files.items()}
        for rel, (_, module) in files.items():
            for name in (module, *_namespace_names(rel, module, packages)):
                self._by_module.setdefault(name, rel)
        self._parsed: dict[str, Module | None] = {}
        # A top-level package that loads another package of the tree as itself, by its
        # name: that package's name (scanner.reach.package_aliases); None: it loads none.
        self._aliases: dict[str, str | None] = {}
        self._extensions: dict[str, str] | None = None  # declared, read at the first ask
        self._scripts: tuple[str, ...] = ()  # the build scripts they are declared in
        # What the walks read while a knob is judged (set by the scan that keeps each
        # knob's evidence until a module it read changes; None: nothing is recorded).
        self.reads: Reads | None = None

    def rels(self) -> Iterator[str]:
        """The relative path of every Python module of the tree."""
        return iter(self._files)

    def matching(
        self,
        *tests: Callable[[bytes], bool],
        known: Mapping[str, Sequence[bool]] | None = None,
    ) -> tuple[tuple[str, ...], ...]:
        """For each test, the modules (sorted) whose bytes it accepts, in one read of each
        module for all the tests; ``known``: the tests' answers for modules read before
        (in the tests' order), which are not read again."""
        found: tuple[list[str], ...] = tuple([] for _ in tests)
        for rel in sorted(self._files):
            answers = known.get(rel) if known is not None else None
            if answers is None:
                data = self.data(rel)
                if data is None:
                    continue
                answers = [test(data) for test in tests]
            for hits, accepted in zip(found, answers, strict=True):
                if accepted:
                    hits.append(rel)
        return tuple(tuple(hits) for hits in found)

    def data(self, rel: str) -> bytes | None:
        """A module's bytes, or None when it cannot be read."""
        found = self._files.get(rel)
        if found is None:
            return None
        try:
            return read_bytes(found[0], MAX_MODULE_BYTES)
        except (SourceError, OSError):
            return None

    def text(self, rel: str) -> str | None:
        """A module's text, or None when it cannot be read or decoded."""
        data = self.data(rel)
        if data is None:
            return None
        try:
            return decode_source(data)
        except (SourceError, ValueError):
            return None

    def module_name_at(self, rel: str) -> str | None:
        """The dotted name of the module at ``rel``."""
        found = self._files.get(rel)
        return found[1] if found is not None else None

    def module_at(self, rel: str) -> Module | None:
        """The module at ``rel`` (a scanned Python file), parsed."""
        return self.module(rel) if rel in self._files else None

    def module(self, rel: str) -> Module | None:
        """The module at ``rel``, parsed (None when it is not Python the parser takes)."""
        reads = self.reads
        if reads is not None and rel not in reads.seen and rel in self._files:
            reads.module(rel)
        if rel in self._parsed:
            return self._parsed[rel]
        found = self._parse(rel)
        self._parsed[rel] = found
        return found

    def asked(self, module: str, name: str) -> None:
        """Note that a walk asked which modules may name ``name`` of ``module`` (an index
        spanning the tree answers: a change to any module may change the answer)."""
        if self.reads is not None:
            self.reads.ask((module, name))

    def reexported(self, dotted: str) -> str:
        """``dotted`` followed through the imports of the tree's modules it passes through
        (``pkg.utils.triton.jit``, where pkg.utils imports triton, is ``triton.jit``)."""
        for _ in range(MAX_REEXPORTS):
            split = self.split(dotted)
            if split is None:
                return dotted
            module, rest = split
            head, _, tail = rest.partition(".")
            target = module.imports.get(head)
            if target is None:
                return dotted
            dotted = f"{target}.{tail}" if tail else target
        return dotted

    def starred(self, module: Module, name: str) -> str | None:
        """Where ``name``, which ``module`` binds by no import of its own, comes from through
        its ``from pkg.mod import *`` (a definition or an import of ``pkg.mod``), or None."""
        for star in module.stars:
            source = self.module_named(star)
            if (
                source is not None
                and not name.startswith("_")
                and (name in source.definitions or name in source.imports)
            ):
                return f"{star}.{name}"
        return None

    def in_tree(self, dotted: str) -> bool:
        """Whether ``dotted`` names a module of the tree or something in one (read without
        parsing anything)."""
        parts = dotted.split(".")
        return any(".".join(parts[:cut]) in self._by_module for cut in range(len(parts), 0, -1))

    def extension(self, dotted: str) -> tuple[str, str] | None:
        """The CUDA extension the tree's build scripts declare that ``dotted`` lies in, with
        where it is declared (scanner.reach.extensions); None otherwise."""
        if self._extensions is None:
            self._scripts = tuple(rel for rel in self._files if is_build_script(rel))
            self._extensions = declared_extensions(self._scripts, self.data, self._syntax)
        if self.reads is not None:
            for rel in self._scripts:
                self.reads.module(rel)
        return extension_of(dotted, self._extensions)

    def _syntax(self, rel: str) -> tuple[ast.Module, Callable[[ast.expr], str | None]] | None:
        module = self.module(rel)
        return (module.tree, module.resolve_api) if module is not None else None

    def enum_member(self, dotted: str) -> object:
        """The value ``pkg.mod.Mode.OFF`` equals, where ``Mode`` is an int or str
        enumeration of the tree (``class Mode(IntEnum): OFF = 0``); None otherwise."""
        split = self.split(self.reexported(dotted))
        if split is None or split[1].count(".") != 1:
            return None
        module, rest = split
        owner, _, attr = rest.partition(".")
        node = module.definitions.get(owner)
        if not isinstance(node, ast.ClassDef):
            return None
        return enum_members(node).get(attr)

    def module_named(self, dotted: str) -> Module | None:
        rel = self._by_module.get(dotted)
        if rel is None:
            head, dot, rest = dotted.partition(".")
            loaded = self._loaded_as(head) if dot else None
            rel = self._by_module.get(f"{loaded}.{rest}") if loaded is not None else None
            if rel is not None:
                self.module(self._by_module[head])  # the package read, for the scan's cache
        return self.module(rel) if rel is not None else None

    def _loaded_as(self, package: str) -> str | None:
        """The package of the tree the top-level ``package`` loads as itself, or None."""
        if package in self._aliases:
            return self._aliases[package]
        self._aliases[package] = None
        rel = self._by_module.get(package)
        if rel is None or not rel.endswith("__init__.py"):
            return None
        text = self.text(rel)
        if text is None or "submodule_search_locations" not in text:
            return None
        module = self.module(rel)
        if module is None:
            return None
        directory = loaded_directory(module.tree, rel, self._package_file)
        name = self._files.get(f"{directory}/__init__.py") if directory is not None else None
        if name is not None and name[1] != package:
            self._aliases[package] = name[1]
        return self._aliases[package]

    def _package_file(self, name: str) -> str | None:
        rel = self._by_module.get(name)
        return rel if rel is not None and rel.endswith("__init__.py") else None

    def split(self, dotted: str) -> tuple[Module, str] | None:
        """The module a dotted name lies in, and the rest of the name (``pkg.mod.C.m`` ->
        (pkg.mod, ``C.m``)): the longest prefix that is a module of the tree."""
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = self.module_named(".".join(parts[:cut]))
            if module is not None:
                return module, ".".join(parts[cut:])
        return None

    def _parse(self, rel: str) -> Module | None:
        text = self.text(rel)
        if text is None:
            return None
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        name = self._files[rel][1]
        module = Module(
            rel=rel,
            name=name,
            tree=tree,
            lines=text.splitlines(),
            reexported=self.reexported,
            in_tree=self.in_tree,
            extension=self.extension,
            enum_member=self.enum_member,
        )
        _index(module, rel.endswith("__init__.py"))
        return module


def _namespace_names(rel: str, module: str, packages: set[str]) -> list[str]:
    """The names a module is imported under, its own first. Where its path's first folder
    is a package of the tree but folders between it and the module have no
    ``__init__.py`` (namespace packages: ``pkg/srt/models/m.py``, whose packages name it
    ``m``), its own name is its path (``pkg.srt.models.m``), and each shorter tail of the
    path longer than ``module`` (``srt.models.m``) names it too."""
    parts = rel.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    known = module.split(".")
    if (
        len(parts) <= len(known)
        or parts[0] not in packages
        or parts[-len(known) :] != known
        or not all(p.isidentifier() for p in parts)
    ):
        return [module]
    return [".".join(parts[cut:]) for cut in range(len(parts) - len(known))]


def _string_items(node: ast.expr | None) -> tuple[str, ...] | None:
    """The strings of a literal tuple, list, set or frozenset of strings."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("frozenset", "set", "tuple")
        and len(node.args) == 1
    ):
        node = node.args[0]
    if not isinstance(node, ast.Tuple | ast.List | ast.Set):
        return None
    items = [e.value for e in node.elts if isinstance(e, ast.Constant)]
    if len(items) != len(node.elts) or not all(isinstance(i, str) for i in items):
        return None
    return tuple(str(i) for i in items)


def _short(node: ast.expr) -> str | None:
    """The last name of a call's target or a load (``f`` of ``x.f``)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _imported(
    module: Module, statement: ast.Import | ast.ImportFrom, is_package: bool
) -> dict[str, str]:
    """The names an import statement binds, and what each refers to."""
    found: dict[str, str] = {}
    if isinstance(statement, ast.Import):
        for alias in statement.names:
            local = alias.asname or alias.name.split(".")[0]
            found[local] = alias.name if alias.asname else local
        return found
    base = resolve_relative(module.name, is_package, statement.level, statement.module or "")
    for alias in statement.names:
        if alias.name != "*":
            found[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
    return found


def _index(module: Module, is_package: bool) -> None:
    """Fill ``module``'s imports, definitions and module-level names."""
    bound: set[str] = set()
    top = set()
    for statement in _top_level(module.tree.body):
        top.add(id(statement))
        if isinstance(statement, ast.Import | ast.ImportFrom):
            module.imports.update(_imported(module, statement, is_package))
            if isinstance(statement, ast.ImportFrom) and any(
                a.name == "*" for a in statement.names
            ):
                level, name = statement.level, statement.module or ""
                module.stars.append(resolve_relative(module.name, is_package, level, name))
        elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            if statement.name not in module.definitions or not _only_raises(statement):
                module.definitions[statement.name] = statement
        elif isinstance(statement, ast.ClassDef):
            module.definitions[statement.name] = statement
            for inner in statement.body:
                if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    module.definitions[f"{statement.name}.{inner.name}"] = inner
        elif isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            strings = _string_items(statement.value)
            if strings is not None and len(targets) == 1 and isinstance(targets[0], ast.Name):
                module.strings[targets[0].id] = strings
            if (
                isinstance(statement.value, ast.Name | ast.Attribute | ast.Lambda | ast.Call)
                and len(targets) == 1
                and isinstance(targets[0], ast.Name)
            ):
                module.aliases.setdefault(targets[0].id, []).append(statement.value)
            bound.update(n.id for t in targets for n in walk(t) if isinstance(n, ast.Name))
    module.globals = frozenset(bound)
    # A ``global`` statement and a name that resolves to ``importlib.import_module`` are
    # spelt in the module's text (a name perhaps in other characters that NFKC folds):
    # where it holds neither, no function is walked for the one, no call resolved for the
    # other.
    declares = any("global" in line for line in module.lines)
    loads = any("import_module" in line or not line.isascii() for line in module.lines)
    globals_of: dict[int, frozenset[str]] = {}
    for statement in module.locate.statements():
        if id(statement) in top:
            continue
        if isinstance(statement, ast.Import | ast.ImportFrom):
            binds = _imported(module, statement, is_package)
        elif (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            bound_to = _imported_value(module, statement.value, loads)
            binds = {statement.targets[0].id: bound_to} if bound_to is not None else {}
        else:
            continue
        if not binds:
            continue  # binds nothing: which function it sits in does not matter
        function = module.function_node_around(statement)
        own = module._imported_in.setdefault(id(function), {}) if function else {}
        if function is not None and id(function) not in globals_of:
            globals_of[id(function)] = (
                _declared_global(module.walked(function)) if declares else frozenset()
            )
        declared = globals_of.get(id(function), frozenset()) if function else frozenset()
        for local, target in binds.items():
            module.local_imports.setdefault(local, target)
            own.setdefault(local, target)
            if local in declared or function is None:
                module._imported_in.setdefault(_GLOBAL, {}).setdefault(local, target)
    module._indexed = True


def _only_raises(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``function`` does nothing but raise: the stub an availability test defines in
    the other arm (``if TRITON_AVAILABLE: def attn(...): <kernels> else: def attn(*a):
    raise ImportError(...)``), which never stands in for the definition that works."""
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return len(body) == 1 and isinstance(body[0], ast.Raise)


_GLOBAL = 0  # the key, among functions' ids, of imports that bind a module-level name


def _declared_global(nodes: Iterable[ast.AST]) -> frozenset[str]:
    """The names a function (all its ``nodes``) declares ``global`` (an import there binds
    them for all)."""
    return frozenset(name for node in nodes if isinstance(node, ast.Global) for name in node.names)


def _imported_value(module: Module, value: ast.expr, loads: bool) -> str | None:
    """What a function's ``m = importlib.import_module("pkg.mod")`` or ``C = m.C`` binds
    (``loads``: whether the module's text names ``import_module`` at all)."""
    if (
        loads
        and isinstance(value, ast.Call)
        and len(value.args) == 1
        and isinstance(value.args[0], ast.Constant)
        and isinstance(value.args[0].value, str)
        and module.resolve(value.func) == "importlib.import_module"
    ):
        return value.args[0].value
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
        base = module.local_imports.get(value.value.id)
        return f"{base}.{value.attr}" if base is not None else None
    return None


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, those under ``if``/``try`` at module level included (an
    import guarded by ``try: import triton`` binds as much as a plain one)."""
    for statement in body:
        yield statement
        if isinstance(statement, ast.If):
            yield from _top_level(statement.body)
            yield from _top_level(statement.orelse)
        elif isinstance(statement, ast.Try):
            yield from _top_level(statement.body)
            for handler in statement.handlers:
                yield from _top_level(handler.body)
            yield from _top_level(statement.orelse)


def _root_name(node: ast.expr) -> ast.Name | None:
    """The name a chain of attributes starts from (``a`` of ``a.b.c``), or None for any
    other expression."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node if isinstance(node, ast.Name) else None


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    arguments = function.args
    named = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    named += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return {a.arg for a in named}
