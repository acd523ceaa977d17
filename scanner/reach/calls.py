"""What a piece of code reaches: its own marks and those of the functions it calls.

Calls are followed through the tree (imports, re-exports, ``self.`` methods, a class's
``__init__``/``forward``/``__call__``, an autograd Function's ``forward`` and
``backward`` through ``.apply``), each function walked once for every depth its reach
depends on (scanner.reach.walked). A mark is *always*
reached when no branch of the code on the way decides it (the statements of a block, a
loop's body, a call's target); one under an ``if``, a short circuit or an exception
handler is reached only sometimes. A reference to a function (``impl = fused_op``) counts
as a call: the value is called later.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from scanner.reach.constructed import Fixed, decided, fixed_attributes
from scanner.reach.held import Holder
from scanner.reach.held_graphs import class_graphs
from scanner.reach.hook_lists import added_hook, hook_captures
from scanner.reach.import_fallbacks import own_import_fallback
from scanner.reach.instance_types import class_of
from scanner.reach.libraries import library_of
from scanner.reach.library_loads import library_load
from scanner.reach.loaded import LOADERS, loaded_call_mark, loader_returned
from scanner.reach.looked_up import Tables
from scanner.reach.marks import (
    KERNEL_MARKS,
    Mark,
    MarkKind,
    bound_api,
    decorator_marks,
    library_reference,
    node_marks,
)
from scanner.reach.modules import Definition, Module, Tree
from scanner.reach.optional import optional_package
from scanner.reach.platforms import off_gpu_arm, off_gpu_call
from scanner.reach.processes import PROCESS_STARTERS, main_block, program_run
from scanner.reach.protocols import (
    annotated_class,
    implementations,
    naming_modules,
    parameter_class,
)
from scanner.reach.races import Races
from scanner.reach.shapes import called
from scanner.reach.source_patches import executes, installed_marks
from scanner.reach.split_reduction import split_marks
from scanner.reach.star_names import star_imported
from scanner.reach.walked import Walked
from scanner.reach.warned import only_warns
from scanner.source.ast_walk import children, walk

MAX_DEPTH = 8  # calls followed from a branch
MAX_FUNCTIONS = 20_000  # functions read per scan
MAX_REEXPORTS = 4  # re-exports followed to a definition
MAX_BASES = 8  # classes a method is looked for in, through their bases
_TEXT = (ast.Name, ast.BinOp)  # what a string of source text is handed in as
_CLASS_ENTRY = ("__init__", "forward", "__call__")
_FUNCTION_ENTRY = ("forward", "backward")


@dataclass(frozen=True, slots=True)
class Step:
    """One call on the way from a branch to a mark."""

    text: str  # "calls fused_rms_norm"
    path: str
    line: int
    target: str = ""  # the dotted name of the definition called (``pkg.mod.C.m``)

    def shown(self) -> str:
        return f"{self.text} ({self.path}:{self.line})"


@dataclass(slots=True)
class Found:
    """The marks a piece of code reaches, each with the calls that lead to it (the
    fewest), and those it reaches whatever its branches decide."""

    marks: dict[Mark, tuple[Step, ...]] = field(default_factory=dict)
    always: set[Mark] = field(default_factory=set)
    calls: set[str] = field(default_factory=set)  # the tree's definitions it calls itself
    # Modules of the tree's own packages it calls into that the tree lacks (a file left out
    # of the package): code no one can read, which may run a kernel.
    unseen: set[str] = field(default_factory=set)
    # Names of the tree's modules it calls that no module defines, imports or star-imports
    # (``pkg.op_bound_at_run_time(...)``): code no one can read here.
    absent: set[str] = field(default_factory=set)
    # Marks it reaches only on a machine without a GPU (scanner.reach.platforms).
    elsewhere: set[Mark] = field(default_factory=set)
    # Of those, an operator of such a machine called where no test of the machine guards it
    # (``torch.ops.npu.mla_preprocess(...)`` on the path itself): the path is that machine's.
    foreign: set[Mark] = field(default_factory=set)
    # Modules it loads at run time by a path or a computed name (``module_from_spec``,
    # ``import_module(name)``), each with where: code no one can read here.
    loaded: set[str] = field(default_factory=set)

    def add(
        self,
        mark: Mark,
        steps: tuple[Step, ...],
        always: bool,
        elsewhere: bool = False,
        foreign: bool = False,
    ) -> None:
        known = self.marks.get(mark)
        if known is None or len(steps) < len(known):
            self.marks[mark] = steps
        if always:
            self.always.add(mark)
        if not elsewhere:
            self.elsewhere.discard(mark)
        elif known is None:
            self.elsewhere.add(mark)
        if foreign and mark in self.elsewhere:
            self.foreign.add(mark)
        elif not elsewhere:
            self.foreign.discard(mark)

    def merge(self, other: Found, step: Step | None, always: bool, elsewhere: bool = False) -> None:
        if step is not None and step.target:
            self.calls.add(step.target)
        self.unseen |= other.unseen
        self.absent |= other.absent
        self.loaded |= other.loaded
        for mark, steps in other.marks.items():
            self.add(
                mark,
                (step, *steps) if step is not None else steps,
                always and mark in other.always,
                elsewhere or mark in other.elsewhere,
                not elsewhere and mark in other.foreign,
            )


class Reach:
    """Follows code through the tree to its marks; one per scan (it remembers walks)."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        # What each function reaches, by the depth it holds at (scanner.reach.walked).
        self._walked: Walked[Found] = Walked(MAX_DEPTH)
        self._read = 0
        self._returned: dict[str, str | None] = {}
        self._loaders: dict[str, tuple[str, str, int] | None] = {}
        self._inheriting: set[str] = set()
        self._graphs: dict[str, Found] = {}
        self._hooks: dict[str, Found] = {}
        self._optional: dict[tuple[str, str], str | None] = {}
        self._executes: dict[str, bool] = {}
        self._implemented: dict[tuple[str, str], list[str]] = {}
        self._naming: dict[str, tuple[str, ...]] = {}
        self.holder = Holder(self)
        self.tables = Tables()  # module-level literal tables of functions (looked_up.py)
        self.races = Races(self._split_callee)
        # What a method reaches on an object made with constants (scanner.reach.constructed).
        self._fixed: dict[tuple[str, tuple[tuple[str, frozenset[object]], ...], int], Found] = {}

    def of_statements(
        self, module: Module, statements: Sequence[ast.stmt], owner: str | None, depth: int = 0
    ) -> Found:
        """What ``statements`` of ``module`` reach (``owner``: the class of a method)."""
        found = Found()
        walker = _Walker(self, module, owner, depth, found)
        for statement in statements:
            walker.visit(statement, always=True)
        for race in self.races.within(module, statements):
            found.add(race.mark, (), False)
        return found

    def of_expression(
        self, module: Module, node: ast.expr, owner: str | None, depth: int = 0
    ) -> Found:
        """What evaluating ``node`` reaches."""
        found = Found()
        _Walker(self, module, owner, depth, found).visit(node, always=True)
        return found

    def function(self, dotted: str, depth: int) -> tuple[Found, Step | None] | None:
        """What calling the tree's ``dotted`` reaches, and the step that shows the call;
        None when it is no definition of the tree."""
        located = self._locate(dotted)
        if located is None:
            return self._alias(dotted, depth)
        module, local, node = located
        key = f"{module.name}.{local}"
        step = Step(f"calls {local}", module.rel, node.lineno, key)
        known = self._walked.get(key, depth)
        if known is not None:
            return known, step
        if depth >= MAX_DEPTH or self._read >= MAX_FUNCTIONS:
            self._walked.met(MAX_DEPTH)
            return Found(), step
        self._read += 1
        self._walked.start(depth)
        try:
            found = self._definition(module, local, node, depth)
        except BaseException:
            self._walked.abandon()
            raise
        self._walked.end(key, depth, found)
        return found, step

    def fixed_method(
        self, module: Module, local: str, fixed: Fixed, depth: int
    ) -> tuple[Found, Step] | None:
        """What calling the method ``local`` of ``module`` reaches on an object whose
        attributes ``fixed`` holds only the constants given (scanner.reach.constructed):
        its tests of them decided, and those of the methods of its own it calls; None where
        the class defines no such method."""
        node = module.definitions.get(local)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return None
        step = Step(f"calls {local}", module.rel, node.lineno, f"{module.name}.{local}")
        key = (f"{module.name}.{local}", tuple(sorted(fixed.items(), key=str)), depth)
        known = self._fixed.get(key)
        if known is None:
            known = self._fixed[key] = Found()
            if depth < MAX_DEPTH:
                owner = module.qualified(local.rsplit(".", 1)[0])
                walker = _Walker(self, module, owner, depth + 1, known)
                walker.fixed = fixed
                for mark in decorator_marks(module, node):
                    known.add(mark, (), always=True)
                for statement in node.body:
                    walker.visit(statement, always=True)
        return known, step

    def _alias(self, dotted: str, depth: int) -> tuple[Found, Step | None] | None:
        """A module name bound to what it calls (``jit_fuser = lazy_compile``), or an
        attribute a class's methods bind (``self._gemm = ...``): what calling any of the
        expressions bound to it reaches (always, where it is bound once)."""
        split = self.tree.split(self.tree.reexported(dotted))
        if split is None:
            return None
        module, name = split
        cls, _, attr = name.rpartition(".")
        if cls.count(".") == 1:  # self.runner.run, with self.runner = Runner(...): Runner.run
            outer, _, bound = cls.partition(".")
            made = module.attribute_values(outer, bound)
            if len(made) == 1 and isinstance(made[0], ast.Call):
                made_by = module.resolve(made[0].func, module.qualified(outer))
                if made_by is not None and made_by != dotted:
                    direct = self.function(f"{made_by}.{attr}", depth)
                    if direct is not None:
                        return direct
            elif len(made) == 1 and isinstance(made[0], ast.Name):
                typed = _annotated_parameter(module, outer, made[0].id)
                if typed is not None and typed != dotted:
                    return self.function(f"{typed}.{attr}", depth)
            return self._held_methods(
                self.holder.attribute_methods(module, outer, bound, attr), dotted, depth
            )
        if cls in module.aliases and cls not in module.definitions:
            # ``Ops.fused(x)``, with ``Ops = pick_ops()`` at module level returning a class
            methods = self.holder.global_methods(module, cls, attr)
            return self._held_methods(methods, dotted, depth)
        if cls:  # self.attr, bound in a method: ``self._gemm = functools.partial(gemm)``
            values = module.attribute_values(cls, attr) if "." not in cls else []
            owner = module.qualified(cls)
        else:
            values, owner = module.aliases.get(name, []), None
        if not values:
            return None
        key = f"{module.name}.{name}"
        known = self._walked.get(key, depth)
        if known is None:
            if depth >= MAX_DEPTH:
                self._walked.met(MAX_DEPTH)
                return Found(), None
            self._walked.start(depth)
            try:
                known = Found()
                walker = _Walker(self, module, owner, depth + 1, known)
                for value in values:  # bound once: calling it calls that
                    walker.visit(value, always=len(values) == 1)
            except BaseException:
                self._walked.abandon()
                raise
            self._walked.end(key, depth, known)
        return known, Step(f"calls {name}", module.rel, values[0].lineno, key)

    def _held_methods(
        self, methods: Sequence[str], dotted: str, depth: int
    ) -> tuple[Found, Step | None] | None:
        """What calling any of ``methods`` (those of the objects an attribute may hold)
        reaches, sometimes: which one runs is the object's."""
        found: Found | None = None
        for method in methods:
            if method == dotted:
                continue
            reached = self.function(method, depth)
            if reached is not None:
                found = found or Found()
                found.merge(reached[0], reached[1], always=False)
                found.merge(self.object_graphs(method), None, always=False)
        return (found, None) if found is not None else None

    def protocol_method(
        self, protocol: str, method: str, depth: int
    ) -> tuple[Found, Step | None] | None:
        """What calling ``method`` of an object typed with the tree's ``typing.Protocol``
        ``protocol`` reaches: that of each class that fits it, sometimes
        (scanner.reach.protocols); None where it is no protocol."""
        key = (protocol, method)
        if key not in self._implemented:
            self._implemented[key] = implementations(
                self.tree, self.class_named, self._naming_modules, *key
            )
        return self._held_methods(self._implemented[key], f"{protocol}.{method}", depth)

    def _naming_modules(self, name: str) -> tuple[str, ...]:
        if name not in self._naming:
            self._naming[name] = naming_modules(self.tree, name)
        return self._naming[name]

    def object_graphs(self, method: str) -> Found:
        """The CUDA graphs the object whose ``method`` is called keeps: those the methods
        of its class (and of the tree's classes it inherits from) capture, each reached
        through the method that captures it (``scanner.reach.held_graphs``)."""
        cls = method.rpartition(".")[0]
        known = self._graphs.get(cls)
        if known is not None:
            return known
        found = self._graphs[cls] = Found()
        pending, seen = [cls], set[str]()
        while pending and len(seen) < MAX_BASES:
            located = self.class_named(pending.pop(0))
            if located is None or located[1] in seen:
                continue
            module, local, node = located
            seen.add(local)
            held = cls.rpartition(".")[2]
            for mark, name, line in class_graphs(module, node):
                text = f"holds a {held}, whose {local}.{name} captures CUDA graphs"
                found.add(mark, (Step(text, module.rel, line),), always=False)
            pending.extend(d for d in map(module.resolve, node.bases) if d is not None)
        return found

    def hook_graphs(self, module: Module, call: ast.Call, owner: str | None) -> Found | None:
        """The CUDA graph captures a hook ``call`` adds to a list runs under, where the tree
        calls that list's hooks inside a function it hands to a capture
        (``scanner.reach.hook_lists``); None where ``call`` adds no hook."""
        attr = added_hook(module, call, self._function_only, owner)
        if attr is None:
            return None
        self.tree.asked("", attr)  # a module of the tree that names it may call its hooks
        known = self._hooks.get(attr)
        if known is not None:
            return known
        found = self._hooks[attr] = Found()
        for where, inner, capture in hook_captures(self.tree, attr):
            text = (
                f"adds a hook to {attr}, which {inner.name} calls, a function handed to the "
                f"call at {where.rel}:{capture.lineno}"
            )
            step = Step(text, where.rel, inner.lineno)
            reached = self.of_expression(where, capture.func, where.owner_class(capture), 1)
            for mark, steps in reached.marks.items():
                if mark.kind is MarkKind.GRAPH:
                    found.add(mark, (step, *steps), always=False)
        return found

    def _function_only(self, dotted: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        located = self._function_node(dotted)
        return located[2] if located is not None else None

    def missing(self, dotted: str) -> bool:
        """Whether ``dotted`` names a module of one of the tree's packages that the tree
        does not hold (``pkg.ops.gemv.gemv``, where ``pkg/ops/`` has no ``gemv.py``)."""
        split = self.tree.split(dotted)
        if split is None:
            return False
        package, rest = split
        head = rest.partition(".")[0]
        return (
            package.rel.endswith("__init__.py")
            and "." in rest
            and head not in package.definitions
            and head not in package.imports
            and head not in package.globals
            and self.tree.starred(package, head) is None  # ``from .modes import *``
        )

    def optional(self, dotted: str | None) -> str | None:
        """The package outside the tree ``dotted`` is called through, where a module name of
        the tree is bound to it as an optional import (``scanner.reach.optional``)."""
        split = self.tree.split(dotted) if dotted is not None else None
        if split is None:
            return None
        module, rest = split
        head, dot, _ = rest.partition(".")
        if not dot or head not in module.globals:
            return None
        key = (module.rel, head)
        if key not in self._optional:
            self._optional[key] = optional_package(module, head)
        return self._optional[key]

    def reached(self, found: Found, depth: int = MAX_DEPTH) -> dict[str, tuple[Module, str]]:
        """The tree's definitions the code of ``found`` calls, and those they call, up to
        ``depth`` calls away, each once: by dotted name, with its module and its name there
        (``C.m``). The calls are those this walk followed (see ``Found.calls``)."""
        seen: dict[str, tuple[Module, str]] = {}
        level = sorted(found.calls)
        for _ in range(depth):
            following: set[str] = set()
            for key in level:
                if key in seen:
                    continue
                located = self._locate(key)
                if located is None:
                    continue
                seen[key] = (located[0], located[1])
                known = self._walked.any(key)  # what it calls itself: at any depth
                if known is None:  # met beyond the depth of the walk that called it
                    reached = self.function(key, 0)
                    known = reached[0] if reached is not None else Found()
                following.update(known.calls)
            level = sorted(following - seen.keys())
            if not level:
                break
        return seen

    def called(self, found: Found, depth: int = MAX_DEPTH) -> set[str]:
        """The dotted names the code of ``found`` calls, and those they call, up to
        ``depth`` calls away: definitions and names bound to what is called alike (the
        calls each walk followed, at any depth; one not walked yet is walked from here)."""
        seen: set[str] = set()
        level = set(found.calls)
        for _ in range(depth):
            level -= seen
            if not level:
                break
            seen |= level
            following: set[str] = set()
            for key in sorted(level):
                known = self._walked.any(key)
                if known is None:
                    reached = self.function(key, 0)
                    known = reached[0] if reached is not None else Found()
                following |= known.calls
            level = following
        return seen

    def module_returned(self, dotted: str) -> str | None:
        """The module of the tree that the function ``dotted`` imports and returns
        (``return importlib.import_module("pkg.kernels")``: a lazy import, so that
        ``kernels(...).fused(x)`` calls ``pkg.kernels.fused``); None when it returns
        anything else."""
        if dotted not in self._returned:
            self._returned[dotted] = None
            located = self._locate(dotted)
            module, node = (located[0], located[2]) if located is not None else (None, None)
            if module is not None and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                names = {
                    _imported_name(module, r.value) if r.value is not None else None
                    for r in walk(node)
                    if isinstance(r, ast.Return)
                }
                name = names.pop() if len(names) == 1 else None
                if name is not None and self.tree.module_named(name) is not None:
                    self._returned[dotted] = name
        return self._returned[dotted]

    def loader_returned(self, dotted: str) -> tuple[str, str, int] | None:
        """The API (with its place) that compiles and loads the module the tree's function
        ``dotted`` returns, or None (scanner.reach.loaded)."""
        if dotted not in self._loaders:
            self._loaders[dotted] = loader_returned(self._function_node, dotted)
        return self._loaders[dotted]

    def _function_node(
        self, dotted: str
    ) -> tuple[Module, str, ast.FunctionDef | ast.AsyncFunctionDef] | None:
        located = self._locate(dotted)
        if located is None or not isinstance(located[2], ast.FunctionDef | ast.AsyncFunctionDef):
            return None
        return located[0], located[1], located[2]

    def _definition(self, module: Module, local: str, node: Definition, depth: int) -> Found:
        if isinstance(node, ast.ClassDef):
            found = Found()
            for entry in _CLASS_ENTRY + _FUNCTION_ENTRY:
                inner = self.function(module.qualified(f"{local}.{entry}"), depth + 1)
                if inner is not None:
                    found.merge(inner[0], inner[1], always=False)
            return found
        found = Found()
        for mark in decorator_marks(module, node):
            found.add(mark, (), always=True)
        for mark, always in split_marks(module, node, self._split_callee):
            found.add(mark, (), always)
        for race in self.races.of(module, node):
            found.add(race.mark, (), False)
        owner = module.qualified(local.rsplit(".", 1)[0]) if "." in local else None
        walker = _Walker(self, module, owner, depth + 1, found)
        for decorator in node.decorator_list:  # @jit_fuser: what the decorator wraps it with
            walker.visit(decorator, always=True)
        for statement in node.body:
            walker.visit(statement, always=True)
        return found

    def _split_callee(
        self, dotted: str
    ) -> tuple[Module, ast.FunctionDef | ast.AsyncFunctionDef] | None:
        located = self._function_node(dotted)
        return None if located is None else (located[0], located[2])

    def _defines(self, dotted: str) -> bool:
        """Whether ``dotted`` names a function the tree defines (through re-exports)."""
        located = self._locate(dotted)
        return located is not None and isinstance(
            located[2], ast.FunctionDef | ast.AsyncFunctionDef
        )

    def class_named(self, dotted: str) -> tuple[Module, str, ast.ClassDef] | None:
        """The tree's class ``dotted`` names (through re-exports), or None."""
        located = self._locate(dotted)
        if located is None or not isinstance(located[2], ast.ClassDef):
            return None
        return located[0], located[1], located[2]

    def absent(self, dotted: str | None) -> bool:
        """Whether ``dotted`` is a name of a module of the tree (``pkg.f``) that the module
        neither defines, binds, imports nor star-imports."""
        if dotted is None:
            return False
        module = self.tree.module_named(dotted.rpartition(".")[0])
        name = dotted.rpartition(".")[2]
        return (
            module is not None
            and name not in module.definitions
            and name not in module.globals
            and name not in module.imports
            and self.tree.module_named(dotted) is None
            and self.tree.starred(module, name) is None
            and not any(self.tree.module_named(star) is None for star in module.stars)
        )

    def executes(self, dotted: str) -> bool:
        """Whether the tree's function ``dotted`` ``exec``s source text (remembered)."""
        known = self._executes.get(dotted)
        if known is None:
            located = self._locate(dotted)
            known = located is not None and executes(located[2])
            self._executes[dotted] = known
        return known

    def definition(self, dotted: str) -> tuple[Module, str, Definition] | None:
        """The definition ``dotted`` names (through re-exports and the classes a class
        inherits from), with its module and its name there; None when the tree has none."""
        return self._locate(dotted)

    def _inherited(self, module: Module, rest: str) -> tuple[Module, str, Definition] | None:
        """``C.m``, a method class ``C`` of ``module`` does not define: the method of the
        first of its bases (the tree's classes, in order, each through its own bases) that
        defines one."""
        cls, _, method = rest.partition(".")
        node = module.definitions.get(cls)
        if not method or "." in method or not isinstance(node, ast.ClassDef):
            return None
        key = f"{module.name}.{rest}"
        if key in self._inheriting or len(self._inheriting) >= MAX_BASES:
            return None
        self._inheriting.add(key)
        try:
            for base in node.bases:
                dotted = module.resolve(base)
                if dotted is not None and self.tree.in_tree(dotted):
                    found = self._locate(f"{dotted}.{method}")
                    if found is not None:
                        return found
        finally:
            self._inheriting.discard(key)
        return None

    def _locate(self, dotted: str) -> tuple[Module, str, Definition] | None:
        """The definition ``dotted`` names, through re-exports of packages."""
        for _ in range(MAX_REEXPORTS):
            split = self.tree.split(dotted)
            if split is None:
                return None
            module, rest = split
            node = module.definitions.get(rest)
            if node is not None:
                return module, rest, node
            head, _, tail = rest.partition(".")
            target = module.imports.get(head) or self.tree.starred(module, head)
            if target is None:
                return self._inherited(module, rest)
            dotted = f"{target}.{tail}" if tail else target
        return None


class _Walker:
    """One walk of code, adding what it reaches to ``found``."""

    def __init__(
        self, reach: Reach, module: Module, owner: str | None, depth: int, found: Found
    ) -> None:
        self.reach = reach
        self.module = module
        self.owner = owner
        self.depth = depth
        self.found = found
        # The function the walked code sits in, found at the first local name asked about.
        self._scope: ast.FunctionDef | ast.AsyncFunctionDef | None = None
        self._scoped = False
        self.elsewhere = False  # walking code only a machine without a GPU runs
        self._mains: set[str] = set()  # modules whose __main__ block a process started runs
        # The attributes of ``self`` that hold only known constants in the object walked
        # (scanner.reach.constructed): the tests of them are decided.
        self.fixed: Fixed = {}

    def visit(self, node: ast.AST, *, always: bool, in_loop: bool = False) -> None:
        marks = node_marks(self.module, node, in_loop=in_loop)
        if (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and self.module.function_node_around(node) is not None
        ):
            # a kernel defined where it is built (``def _kernels(): @triton.jit def k``,
            # returned to be launched): the code that runs the factory builds the kernel;
            # a module-level one under a test (a stub defined in a fallback) is not launched
            marks = decorator_marks(self.module, node)
        if marks:
            native = isinstance(node, ast.Call) and off_gpu_call(self.module, node)
            for mark in marks:
                self.found.add(
                    mark, (), always, self.elsewhere or native, native and not self.elsewhere
                )
        if self.fixed and isinstance(node, ast.If | ast.IfExp):
            held = decided(node.test, self.fixed)
            if held is not None:  # only the side the object's constants take runs
                taken = node.body if held else node.orelse
                side: list[ast.AST] = list(taken) if isinstance(taken, list) else [taken]
                for child in side:
                    self.visit(child, always=always, in_loop=in_loop)
                return
        if isinstance(node, ast.If) and node.orelse and always:
            self._if_else(node, in_loop)
            return
        if isinstance(node, ast.If | ast.IfExp) and not self.elsewhere:
            arm = off_gpu_arm(node.test)
            if arm is not None:
                self._off_gpu_arms(node, arm, always, in_loop)
                return
        if isinstance(node, ast.Compare):  # type(self) is Runner: Runner is not called
            for operand in (node.left, *node.comparators):
                if isinstance(operand, ast.Name | ast.Attribute):
                    self._namespace(operand, always)
                else:
                    self.visit(operand, always=always, in_loop=in_loop)
            return
        if isinstance(node, ast.Set):  # {torch.cond, ...}: members to test against
            self._listed(node.elts, always, in_loop)
            return
        if isinstance(node, ast.Call) and _type_test(node):
            self._type_test(node, always, in_loop)
            return
        if isinstance(node, ast.Call) and self._constructed(node, always):
            for value in (*node.args, *(k.value for k in node.keywords)):  # not the class
                self.visit(value, always=always, in_loop=in_loop)
            return
        if isinstance(node, ast.Subscript) and (
            table := self.reach.tables.values(self.module, node)
        ):
            # ``TABLE[key]``: one of the table's functions, as the key says
            self.visit(node.slice, always=always, in_loop=in_loop)
            for value in table:
                self._reference(value, always=False)
            return
        if isinstance(node, ast.Call):
            self._call(node, always)
        elif isinstance(node, ast.ImportFrom):
            self._import(node, always)
            return
        elif isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Load):
            self._reference(node, always)
            if isinstance(node, ast.Attribute):
                self._namespace(node.value, always)
            return
        elif isinstance(node, ast.Attribute):  # f.warned = True: f is not called
            self._namespace(node.value, always)
            return
        loop = in_loop or isinstance(node, _LOOPS)
        for child, child_always in _children(node, always):
            if isinstance(child, ast.ExceptHandler) and own_import_fallback(
                self.module, node, child
            ):
                continue
            self.visit(child, always=child_always, in_loop=loop and not isinstance(child, _NESTED))

    def _if_else(self, node: ast.If, in_loop: bool) -> None:
        """An ``if`` with an ``else`` that runs: where every arm always reaches a kernel
        (``if a: op = k1 elif b: op = k2 else: op = k3``), the statement always reaches
        one, whichever it is."""
        self.visit(node.test, always=True, in_loop=in_loop)
        arms: list[Found] = []
        off_gpu = None if self.elsewhere else off_gpu_arm(node.test)
        for statements, first in ((node.body, True), (node.orelse, False)):
            found = Found()
            walker = _Walker(self.reach, self.module, self.owner, self.depth, found)
            walker._scope, walker._scoped = self._scope, self._scoped  # the same function
            walker.elsewhere = self.elsewhere or off_gpu is first
            for statement in statements:
                walker.visit(statement, always=True, in_loop=in_loop)
            arms.append(found)
        kernels = [any(m.kind in KERNEL_MARKS for m in arm.always) for arm in arms]
        # A test of the machine the run is on: the arm a CUDA GPU takes runs every time
        # there; where it always reaches a kernel, so does the statement.
        cuda = _on_cuda(node.test)
        every = all(kernels) or (cuda is not None and kernels[0 if cuda else 1])
        # A deterministic mode one arm always sets, where the other only warns that it
        # cannot (scanner.reach.warned), is set whenever it can be.
        warned = (only_warns(node.orelse), only_warns(node.body))
        for arm, reaches, other_warns in zip(arms, kernels, warned, strict=True):
            for mark, steps in arm.marks.items():
                kernel = every and reaches and mark in arm.always and mark.kind in KERNEL_MARKS
                mode = other_warns and mark in arm.always and mark.kind is MarkKind.DETERMINISM
                self.found.add(
                    mark, steps, kernel or mode, mark in arm.elsewhere, mark in arm.foreign
                )
            self.found.calls |= arm.calls
            self.found.unseen |= arm.unseen
            self.found.absent |= arm.absent
            self.found.loaded |= arm.loaded

    def _off_gpu_arms(
        self, node: ast.If | ast.IfExp, body_off_gpu: bool, always: bool, in_loop: bool
    ) -> None:
        """``if _is_npu: ... else: ...`` (or its ternary): what the arm only an NPU or the CPU
        runs reaches, it reaches there alone, never on a GPU."""
        body = node.body if isinstance(node.body, list) else [node.body]
        for child, child_always in _children(node, always):
            in_body = any(child is b for b in body)
            self.elsewhere = child is not node.test and in_body is body_off_gpu
            try:
                self.visit(
                    child, always=child_always, in_loop=in_loop and not isinstance(child, _NESTED)
                )
            finally:
                self.elsewhere = False

    def _type_test(self, call: ast.Call, always: bool, in_loop: bool) -> None:
        """``isinstance(pool, (HybridPool, SWAPool))``: the object is walked, the classes it is
        tested against are not called."""
        self.visit(call.args[0], always=always, in_loop=in_loop)
        for operand in call.args[1:]:
            self._listed(
                operand.elts if isinstance(operand, ast.Tuple) else [operand], always, in_loop
            )

    def _listed(self, nodes: Sequence[ast.expr], always: bool, in_loop: bool) -> None:
        """Names listed to test against (classes, a set's functions): not called; anything
        computed among them is walked."""
        for node in nodes:
            if isinstance(node, ast.Name | ast.Attribute):
                self._namespace(node, always)
            else:
                self.visit(node, always=always, in_loop=in_loop)

    def _namespace(self, node: ast.expr, always: bool) -> None:
        """The base of an attribute (``cute`` in ``cute.runtime``, ``f`` in ``f.warned``): a
        module or an object whose attribute is used, not a function called or handed on;
        anything it is computed with is walked."""
        while isinstance(node, ast.Attribute):
            node = node.value
        if not isinstance(node, ast.Name):
            self.visit(node, always=always)

    def _call(self, call: ast.Call, always: bool) -> None:
        loads = _loads(self.module, call)
        if loads in PROCESS_STARTERS:
            self._process(call, loads, always)
        elif loads is not None:
            self.found.loaded.add(f"{loads} at {self.module.rel}:{call.lineno}")
            mark = library_load(self.module, call)
            if mark is not None:
                self.found.add(mark, (), always, self.elsewhere)
        func = called(call)
        if isinstance(func, ast.Attribute) and func.attr == "apply":
            self._follow(func.value, always, entries=_FUNCTION_ENTRY)
        else:
            self._follow(func, always)
            if any(isinstance(a, _TEXT) for a in call.args):
                self._installed(call, func)
            if isinstance(func, ast.Name | ast.Attribute) and self._unnamed(func):
                self._held(func, always)
            if isinstance(func, ast.Attribute):
                self._unread(func, call.lineno)
                hooked = self.reach.hook_graphs(self.module, call, self.owner)
                if hooked is not None:
                    self.found.merge(hooked, None, False, self.elsewhere)

    def _constructed(self, call: ast.Call, always: bool) -> bool:
        """An object of the tree's class made with constants its methods test
        (scanner.reach.constructed): what its entry points reach as those tests decide.
        False where ``call`` makes no such object."""
        if not call.args and not call.keywords:
            return False
        dotted = self.module.resolve(call.func, self.owner)
        located = self.reach.class_named(dotted) if dotted is not None else None
        if located is None:
            return False
        module, local, node = located
        fixed = fixed_attributes(self.module, call, module, node, local)
        if not fixed:
            return False
        for entry in _CLASS_ENTRY + _FUNCTION_ENTRY:
            reached: tuple[Found, Step | None] | None = self.reach.fixed_method(
                module, f"{local}.{entry}", fixed, self.depth + 1
            )
            if reached is None:  # one it inherits, walked as it is
                reached = self.reach.function(module.qualified(f"{local}.{entry}"), self.depth + 1)
            if reached is not None:
                self.found.merge(*reached, always=False, elsewhere=self.elsewhere)
        return True

    def _unread(self, func: ast.Attribute, line: int) -> None:
        """A call of a name the tree's module lacks, or of a package it imports as optional:
        code the tree does not hold."""
        dotted = self.module.resolve(func)
        where = f"{self.module.rel}:{line}"
        if self.reach.absent(dotted):
            self.found.absent.add(f"{dotted} ({where})")
            return
        package = self.reach.optional(dotted)
        if package is not None:
            self.found.absent.add(f"{dotted} ({where}; {package}, imported as optional)")

    def _installed(self, call: ast.Call, func: ast.expr) -> None:
        """Source text handed to a function of the tree that ``exec``s it: the kernel
        libraries it refers to, sometimes (scanner.reach.source_patches)."""
        dotted = self.module.resolve(func, self.owner)
        if dotted is None or not self.reach.executes(dotted):
            return
        for mark in installed_marks(self.module, call, dotted.rsplit(".", 1)[-1]):
            self.found.add(mark, (), False, self.elsewhere)

    def _unnamed(self, func: ast.Name | ast.Attribute) -> bool:
        """Whether ``func`` names nothing of a module: a local, or a method of an object a
        local, an element or a call holds."""
        return self.module.resolve(func, self.owner) is None

    def _held(self, func: ast.Name | ast.Attribute, always: bool) -> None:
        """A call of what a local holds (``runner_cls(self)``), or of a method of an object
        a local or an element holds (``self.runners[i].capture()``): what the classes and
        functions it may hold reach, sometimes (which one runs is the object's)."""
        holder = self.reach.holder
        if isinstance(func, ast.Name):
            targets = holder.callees(self.module, func, self.owner)
        else:
            targets = holder.methods(self.module, func, self.owner)
            typed = class_of(self.module, func.value, self.reach.tree) if not targets else None
            if typed is not None:  # ``adapter_data.punica_wrapper.add_lora(...)``, annotated
                targets = [f"{typed}.{func.attr}"]
        for target in targets:
            reached = self.reach.function(target, self.depth)
            if reached is not None:
                every = always and len(targets) == 1
                self.found.merge(reached[0], reached[1], every, self.elsewhere)
                if isinstance(func, ast.Attribute) or target.endswith(".__call__"):
                    self.found.merge(self.reach.object_graphs(target), None, False, self.elsewhere)

    def _reference(self, node: ast.Name | ast.Attribute, always: bool) -> None:
        """A function referred to (``run = flashinfer_gemm``) is called later: followed;
        an entry point of a kernel library, or an API whose call is a mark bound to a name
        (``jit_fuser = torch.compile``), is a mark where it is referred to."""
        self._follow(node, always)
        mark = library_reference(self.module, node) or bound_api(self.module, node)
        if mark is not None:
            self.found.add(mark, (), always, self.elsewhere or off_gpu_call(self.module, node))

    def _import(self, node: ast.ImportFrom, always: bool) -> None:
        """A function's own ``from .cuda import triton_gemm as gemm`` that the code after it
        reads (``return gemm``, past the ``if`` that chose the import): what the imported
        function reaches, as a reference to it does."""
        scope = self.module.function_node_around(node)
        if scope is None or self.module.parent(node) is scope:
            return  # in the function's own body, its reads are walked with it
        lines = range(scope.lineno, (scope.end_lineno or scope.lineno) + 1)
        for local, target in self.module.imported_by(node).items():
            reads = [
                n
                for n in self.module.locate.mentioning(local)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.lineno in lines
            ]
            if not reads:
                continue
            reached = self.reach.function(target, self.depth)
            if reached is not None:
                self.found.merge(reached[0], reached[1], always, self.elsewhere)
            elif (
                not self.module.in_tree(target)
                and all(self.module.resolve(n) != target for n in reads)
                and (found := library_of(target))
            ):
                # ``from deep_gemm import f`` (sglang srt/layers/attention/dsv4/metadata.py:
                # 220-226), where the reads name the other arm's import: an entry point of a
                # kernel library (a read that names it is the library's mark itself)
                mark = Mark(MarkKind.LIBRARY, f"{found} ({target})", self.module.rel, node.lineno)
                self.found.add(mark, (), always, self.elsewhere)

    def _follow(self, node: ast.expr, always: bool, entries: Iterable[str] = ()) -> None:
        dotted = self.module.resolve(node, self.owner) or star_imported(
            self.reach.tree, self.module, node
        )
        if dotted is None and isinstance(node, ast.Attribute):
            call = node.value if isinstance(node.value, ast.Call) else self._bound_call(node.value)
            loaded = self.module.resolve(call.func, self.owner) if call is not None else None
            imported = self.reach.module_returned(loaded) if loaded is not None else None
            dotted = f"{imported}.{node.attr}" if imported is not None else None
            if dotted is None and loaded is not None:
                self._loaded_function(node, loaded, always)
            if dotted is None and call is None and isinstance(node.value, ast.Name):
                self._protocol_call(node, node.value, always)
        if dotted is None:
            return
        if self.fixed and self.owner is not None and dotted.startswith(f"{self.owner}."):
            split = self.reach.tree.split(dotted)  # a method of the object walked
            method = (
                self.reach.fixed_method(split[0], split[1], self.fixed, self.depth)
                if split is not None and not entries
                else None
            )
            if method is not None:
                self.found.merge(*method, always=always, elsewhere=self.elsewhere)
                return
        for name in [f"{dotted}.{e}" for e in entries] or [dotted]:
            reached = self.reach.function(name, self.depth)
            if reached is not None:
                found, step = reached
                self.found.merge(found, step, always, self.elsewhere)
            elif self.reach.missing(name):
                self.found.unseen.add(name)

    def _protocol_call(self, node: ast.Attribute, held: ast.Name, always: bool) -> None:
        """``repo.load()``, ``repo`` a parameter typed with a protocol of the tree: the
        ``load`` of each class that fits it (scanner.reach.protocols)."""
        typed = annotated_class(self.module, held)
        if typed is None or not self.reach.tree.in_tree(typed):
            return
        reached = self.reach.protocol_method(typed, node.attr, self.depth)
        if reached is not None:
            self.found.merge(reached[0], reached[1], always, self.elsewhere)

    def _loaded_function(self, node: ast.Attribute, helper: str, always: bool) -> None:
        """``_jit_module(...).run(x)``: a function of the module ``helper`` compiles and loads
        is a kernel (scanner.reach.loaded)."""
        loader = (
            (helper, self.module.rel, node.lineno)
            if helper in LOADERS
            else self.reach.loader_returned(helper)
        )
        if loader is not None:
            mark = loaded_call_mark(self.module, node.lineno, node.attr, helper, loader)
            self.found.add(mark, (), always, self.elsewhere)

    def _process(self, call: ast.Call, starter: str, always: bool) -> None:
        """A process started: one that runs this module's file walks its ``__main__`` block
        (once per walk); one that runs the program otherwise is code no one can read here."""
        run = program_run(self.module, call, self._bound)
        if run == "program":
            self.found.loaded.add(f"{starter} at {self.module.rel}:{call.lineno}")
        elif run == "file" and self.module.rel not in self._mains:
            self._mains.add(self.module.rel)
            walker = _Walker(self.reach, self.module, None, self.depth, self.found)
            walker._mains = self._mains  # module-level code, walked once
            for statement in main_block(self.module):
                walker.visit(statement, always=always)

    def _bound(self, node: ast.Name) -> list[ast.expr]:
        """The values a local name is bound to in the function ``node`` sits in."""
        if not self._scoped:
            self._scope, self._scoped = self.module.function_node_around(node), True
        if self._scope is None:
            return []
        return self.module.local_bindings(self._scope).get(node.id, [])

    def _bound_call(self, node: ast.expr) -> ast.Call | None:
        """The call a local name is bound to, once, in the function ``node`` sits in
        (``kernels = _triton_kernels("X")``), or None."""
        if not isinstance(node, ast.Name):
            return None
        bound = self._bound(node)
        return bound[0] if len(bound) == 1 and isinstance(bound[0], ast.Call) else None


def _annotated_parameter(module: Module, cls: str, name: str) -> str | None:
    """The class a parameter of ``cls.__init__`` is annotated with (``tower: Tower``, kept
    as ``self.tower = tower``: ``self.tower.run`` calls ``Tower.run``), or None."""
    init = module.definitions.get(f"{cls}.__init__")
    if not isinstance(init, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    return parameter_class(module, init, name)


# The machine a run is on, as code tests it (``_is_hip``, ``is_cuda()``,
# ``get_platform().is_sm120``, ``torch.version.hip``): fixed for the whole run.
_PLATFORM = re.compile(
    r"_?(is_)?(?P<what>cuda|hip|rocm|xpu|npu|mps|musa|cpu|sm\d+\w*|gfx\d+\w*|blackwell|hopper)"
    r"(_available|_supported|_platform)?"
)


def _on_cuda(test: ast.expr) -> bool | None:
    """Whether ``test``, a test of the machine alone (names, attributes and argument-free
    calls of platform predicates, negated or joined), holds on a CUDA GPU of no particular
    generation; None for any other test."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        held = _on_cuda(test.operand)
        return None if held is None else not held
    if isinstance(test, ast.BoolOp):
        values = [_on_cuda(v) for v in test.values]
        if any(v is None for v in values):
            return None
        return all(values) if isinstance(test.op, ast.And) else any(values)
    if isinstance(test, ast.Call) and not test.args and not test.keywords:
        test = test.func
    if isinstance(test, ast.Attribute):
        name = test.attr
    elif isinstance(test, ast.Name):
        name = test.id
    else:
        return None
    found = _PLATFORM.fullmatch(name.lower())
    if found is None or name.lower() in ("cpu", "_cpu"):
        return None
    return found.group("what") == "cuda"


def is_platform_test(name: str) -> bool:
    """Whether a function or flag called ``name`` tests the machine (``is_cpu``,
    ``_is_cpu_available``, ``is_sm120``)."""
    lowered = name.lower()
    return lowered not in ("cpu", "_cpu") and _PLATFORM.fullmatch(lowered) is not None


def _type_test(call: ast.Call) -> bool:
    """Whether ``call`` is the builtin ``isinstance(x, T)`` or ``issubclass(x, T)``."""
    return (
        isinstance(call.func, ast.Name)
        and call.func.id in ("isinstance", "issubclass")
        and len(call.args) == 2
        and not call.keywords
    )


def _imported_name(module: Module, node: ast.expr) -> str | None:
    """``"pkg.kernels"`` of ``importlib.import_module("pkg.kernels")``."""
    if (
        isinstance(node, ast.Call)
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
        and module.resolve(node.func) == "importlib.import_module"
    ):
        return node.args[0].value
    return None


_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.GeneratorExp)


def _children(node: ast.AST, always: bool) -> Iterable[tuple[ast.AST, bool]]:
    """The children of ``node`` to walk, each with whether it runs whenever ``node`` does."""
    if isinstance(node, ast.If | ast.While):
        yield node.test, always
        for child in (*node.body, *node.orelse):
            yield child, False
    elif isinstance(node, ast.IfExp):
        yield node.test, always
        yield node.body, False
        yield node.orelse, False
    elif isinstance(node, ast.BoolOp):
        yield node.values[0], always
        for value in node.values[1:]:
            yield value, False
    elif isinstance(node, ast.Try):
        for child in (*node.body, *node.orelse, *node.finalbody):
            yield child, always
        for handler in node.handlers:
            yield handler, False
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        for decorator in node.decorator_list:
            yield decorator, always
        for child in node.body:  # a closure runs when it is called: sometimes
            yield child, False
    elif isinstance(node, ast.Lambda):
        yield node.body, False
    elif isinstance(node, ast.ClassDef):
        return
    else:
        yield from ((child, always) for child in children(node))


# Calls that load a module from a file or run one by path (a vendored copy registered under
# a package's name, a script): what it holds is not the tree's code as the scan reads it.
# ``import_module(name)`` of a computed name is left out: packages import their own
# modules and optional libraries that way everywhere (availability probes, lazy imports).
_LOADERS = frozenset(
    {
        "importlib.util.spec_from_file_location",
        "importlib.util.module_from_spec",
        "runpy.run_path",
    }
)
_LAST_PARTS = frozenset(n.rsplit(".", 1)[-1] for n in _LOADERS | PROCESS_STARTERS) | {"exec_module"}


def _loads(module: Module, call: ast.Call) -> str | None:
    """The call as shown, where it loads a module from a file at run time
    (``spec.loader.exec_module(mod)``, ``importlib.util.module_from_spec``) or starts
    another program (``subprocess.run``); None otherwise."""
    func = call.func
    last = ""
    if isinstance(func, ast.Attribute):
        last = func.attr
    elif isinstance(func, ast.Name):
        last = func.id
    if last not in _LAST_PARTS:
        return None  # the cheap test first: most calls are none of these
    if last == "exec_module":
        return ".exec_module()"
    name = module.resolve_api(func)
    return name if name in _LOADERS or name in PROCESS_STARTERS else None
