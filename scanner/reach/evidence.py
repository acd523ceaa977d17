"""A knob's role from what its value switches between, with the chain of evidence.

For the variable unset (its default) and each other value the probes tried, the branches
that run under one and not the other are followed to their marks. A value that leaves
behind a kernel the default reaches (a Triton kernel, autotuning, a compiled path, ...),
where what runs instead does not always reach a kernel, turns a *kernel* path off: the
knob is a kernel choice, and that value is the one a bitwise recipe writes, whatever the
variable or the names around it are called. A value that runs code the default does not,
which makes the run deterministic, is the framework's *deterministic* mode. Where each
value reaches a kernel of its own, the code does not say which is safe: unknown.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass, replace

from scanner.conventions import EMPTY, OFF_WORDS, ON_WORDS
from scanner.interpret.classify import COMPUTED_UNSET
from scanner.languages import Language
from scanner.model import TRI_STATE, GateKind, Knob, Role, Site
from scanner.reach.beside import beside
from scanner.reach.branches import branches
from scanner.reach.calls import Found, Reach, Step, is_platform_test
from scanner.reach.carriers import Carriers, carried_names
from scanner.reach.caught import caught_here
from scanner.reach.compile_backend import compile_backend
from scanner.reach.config import config_branches, config_key, documented_key
from scanner.reach.decision_tables import together
from scanner.reach.dispatched import dispatched
from scanner.reach.dtypes import dtype_choice
from scanner.reach.fallback import Fallback, fallback
from scanner.reach.fallbacks import fallback_code
from scanner.reach.flag_values import FlagFiles, flag_value
from scanner.reach.handed import handed_calls
from scanner.reach.hazards import Safer, safer_side, shown_code
from scanner.reach.how import RUN_TO_RUN, same_operation
from scanner.reach.in_kernel import SAME_KERNEL, in_kernel
from scanner.reach.machine_answers import machine_answer
from scanner.reach.marks import KERNEL_MARKS, Mark, MarkKind
from scanner.reach.mode_side import ModeSide, mode_side
from scanner.reach.modules import Module, Tree
from scanner.reach.nested import decided_code, enclosing, runs_within
from scanner.reach.own_backward import own_backward
from scanner.reach.partners import Partner, partnered_code, partners
from scanner.reach.passed_flags import passed_flags
from scanner.reach.platforms import off_gpu_judged
from scanner.reach.processes import PROCESS_STARTERS
from scanner.reach.same_library import same_library
from scanner.reach.setters import only_sets_kept
from scanner.reach.sides import Branch
from scanner.reach.site_strings import site_compared
from scanner.reach.trainer_keys import TrainerKey, trainer_key
from scanner.reach.trials import trial_raise
from scanner.reach.weight_loading import weight_loading
from scanner.roles import Evidence
from scanner.source.ast_walk import walk
from scanner.suite_files import TEST_FILE

SWITCH_WORDS = frozenset({*ON_WORDS, *OFF_WORDS, EMPTY})


class CodeReach:
    """The tree and what its code reaches, shared by every knob of one scan."""

    def __init__(self, tree: Tree, knobs: Iterable[Knob]) -> None:
        self.tree = tree
        self.reach = Reach(tree)
        self.carriers = Carriers(tree)
        self.carriers.want(
            carried
            for knob in knobs
            for site in knob.sites
            if site.decisions and (module := tree.module_name_at(site.path)) is not None
            for carried in carried_names(site, module)
        )
        self.carriers.want(
            ("", key)
            for knob in knobs
            for site in knob.sites
            if site.language is not Language.PYTHON and (key := config_key(site)) is not None
        )
        # By the branch's test and side: the tests live as long as the tree's modules.
        self._found: dict[tuple[str, int, bool], Found] = {}
        self._config: dict[tuple[str | None, str | None, bool], list[Branch]] = {}
        self._summaries: dict[tuple[str, int, bool], Summary] = {}
        self.flag_files = FlagFiles(tree)
        self._aside: Reach | None = None
        self._knobs = {knob.name: knob for knob in knobs}
        # A knob's evidence, asked by another's: found with partners, or without (while a
        # partner's is found, scanner.reach.partners), each kept apart.
        self._modes: dict[tuple[str, bool], Evidence | None] = {}
        self._branches: dict[str, list[Branch]] = {}
        self._partnering = 0  # finding a partner's evidence, which asks no partners itself
        self._busy: set[str] = set()  # the knobs whose evidence is being found
        # The Python reads bound to a local, by file and function (decision_tables).
        self._read_in: dict[tuple[str, str], list[Site]] | None = None
        self._settings: dict[tuple[str, str], Evidence | None] = {}  # one table per function

    def loads(self, branch: Branch, code: tuple[ast.stmt, ...]) -> set[str]:
        """The modules ``code`` (beside ``branch``) loads at run time, walked by a reach of
        its own: what the main one remembers of the functions it walked stays as it was."""
        if self._aside is None:
            self._aside = Reach(self.tree)
        return self._aside.of_statements(branch.module, code, branch.owner).loaded

    def summary(self, branch: Branch) -> Summary:
        """What ``branch`` reaches, as sets (found once per branch)."""
        key = (branch.module.rel, id(branch.test), branch.holds)
        known = self._summaries.get(key)
        if known is None:
            known = self._summaries[key] = summarized(self.found(branch), in_kernel(branch))
        return known

    def summary_of(self, branch: Branch, code: tuple[ast.stmt, ...]) -> Summary:
        """What ``code`` (``branch``'s, cut to the side of its inner tests one value takes)
        reaches, as sets."""
        found = self.reach.of_statements(branch.module, code, branch.owner)
        found.merge(beside(self.reach, branch.module, code, branch.owner), None, always=False)
        for mark in branch.marks:
            found.add(mark, (), always=True)
        return summarized(found, in_kernel(branch))

    def found(self, branch: Branch) -> Found:
        key = (branch.module.rel, id(branch.test), branch.holds)
        known = self._found.get(key)
        if known is None:
            code = branch.code
            if isinstance(code, tuple):
                known = self.reach.of_statements(branch.module, code, branch.owner)
                kept = beside(self.reach, branch.module, code, branch.owner)
                known.merge(kept, None, always=False)
            else:
                known = self.reach.of_expression(branch.module, code, branch.owner)
            for mark in branch.marks:
                known.add(mark, (), always=True)
            self._found[key] = known
        return known

    def _config_branches(self, site: Site) -> list[Branch]:
        """The branches a launcher site's config key decides: the same for every site that
        hands the same default to the same key."""
        key = (config_key(site), site.default, (site.target or "").startswith("-"))
        if key[0] is None:
            return []
        known = self._config.get(key)
        if known is None:
            known = list(config_branches(site, self.tree, self.carriers))
            self._config[key] = known
        return known

    def branches_of(self, knob: Knob) -> list[Branch]:
        """Every branch the knob's value decides, from its Python sites and the config keys
        its launcher sites set (found once per knob)."""
        known = self._branches.get(knob.name)
        if known is None or self._knobs.get(knob.name) is not knob:
            known = self._branches_found(knob)
            if self._knobs.get(knob.name) is knob:
                self._branches[knob.name] = known
        return known

    def _branches_found(self, knob: Knob) -> list[Branch]:
        return [
            b
            for site in knob.sites
            for b in (
                branches(site, self.tree, self.carriers)
                if site.language is Language.PYTHON
                else self._config_branches(site)
            )
            if not TEST_FILE.search(b.module.rel)  # a test's code says what the test does
        ]

    def mode_side(self, knob: Knob, lost: Sequence[Branch]) -> ModeSide | None:
        """The framework's deterministic mode that leaves a branch of ``lost`` at its own
        test (``scanner.reach.mode_side``)."""
        return mode_side(knob, lost, self._knobs, self._mode_evidence, self.branches_of)

    def _mode_evidence(self, knob: Knob) -> Evidence | None:
        if knob.name in self._busy:
            return None
        key = (knob.name, self._partnering > 0)
        if key not in self._modes:
            self._modes[key] = self.evidence(knob)
        return self._modes[key]

    def partners(self, knob: Knob, modules: Iterable[str]) -> list[Partner]:
        """The other kernel switches whose off values never run a side of a test in
        ``modules`` (scanner.reach.partners); none while a partner's evidence is found."""
        if self._partnering:
            return []
        return partners(knob, modules, self._knobs.values(), self.branches_of, self._partner)

    def _partner(self, knob: Knob) -> Evidence | None:
        """``knob``'s evidence, found with no partners of its own."""
        self._partnering += 1
        try:
            return self._mode_evidence(knob)
        finally:
            self._partnering -= 1

    def evidence(self, knob: Knob) -> Evidence | None:
        """What the knob's branches show about its role; None when they show nothing."""
        self._busy.add(knob.name)
        try:
            return self._evidence(knob)
        finally:
            self._busy.discard(knob.name)

    def _evidence(self, knob: Knob) -> Evidence | None:
        machine = _machine_test(knob) or _declared_size(knob) or machine_answer(knob)
        if machine is not None:
            return machine
        found = self.branches_of(knob)
        judged = self._judged(knob, found) if found else None
        if judged is not None and judged.role is Role.KERNEL:
            overriding = next((o for b in found if (o := _overrides_torch(b.module))), None)
            if overriding is not None:
                return Evidence(
                    Role.UNKNOWN,
                    f"{judged.reason}; but it is read in code that replaces torch's own ops "
                    f"({overriding}), where a kernel may be what makes the run deterministic: "
                    "a person must say",
                )
            precision = dtype_choice(found)
            if precision is not None:
                return Evidence(
                    Role.UNKNOWN,
                    f"{judged.reason}; but its value also picks the torch dtype at "
                    f"{precision}: a precision choice, not only a kernel's: a person must say",
                )
            loading = weight_loading(found)
            if loading is not None:
                return Evidence(
                    Role.UNKNOWN,
                    f"{judged.reason}; but it is tested in {loading}, a quantizer's "
                    "weight-loading code: its value may change the weights themselves, not "
                    "only the kernel: a person must say",
                )
        if judged is not None:
            return judged
        return (
            compile_backend(knob, self.tree)
            or _documented(knob)
            or self._together(knob)
            or passed_flags(knob)
            or flag_value(knob, self.flag_files)
            or _undocumented(knob)
        )

    def _together(self, knob: Knob) -> Evidence | None:
        """A kernel choice ``knob`` makes with the other variables its function reads
        (scanner.reach.decision_tables)."""
        if self._read_in is None:
            self._read_in = {}
            for other in self._knobs.values():
                for site in other.sites:
                    if site.language is Language.PYTHON and site.target is not None:
                        self._read_in.setdefault((site.path, site.function), []).append(site)
        for site in knob.sites:
            key = (site.path, site.function)
            reads = self._read_in.get(key, [])
            if len(reads) < 2 or site.target is None:
                continue
            if key not in self._settings:
                self._settings[key] = together(reads, self.tree, self.carriers)
            found = self._settings[key]
            mine = dict(found.together).get(knob.name) if found is not None else None
            if found is not None and mine is not None:
                return replace(found, value=mine)
        return None

    def _judged(self, knob: Knob, found: list[Branch]) -> Evidence | None:
        """What the branches show of a GPU run: judged on the kernels a GPU runs, and on
        those of every machine only where no branch reaches a kernel a GPU runs: then the
        gate is a switch of another machine's code (scanner.reach.platforms)."""
        judged = _Judged(self, knob, found)
        gpu = judged.evidence()
        summaries = [self.summary(b) for b in found]
        if gpu is not None and gpu.role is not Role.UNKNOWN:
            if gpu.role is Role.KERNEL and any(s.elsewhere for s in summaries):
                return _elsewhere_instead(judged, gpu)
            return gpu
        if any(s.kernel for s in summaries) or not any(s.elsewhere for s in summaries):
            return gpu
        return off_gpu_judged(_Judged(self, knob, found, everywhere=True).evidence(), gpu)


def _elsewhere_instead(judged: _Judged, gpu: Evidence) -> Evidence:
    """``gpu``, a kernel choice judged on a GPU's kernels, unless the value it leads to
    always calls an operator only a machine without a GPU runs, unguarded by a test of the
    machine, in the kernel's place (an NPU's fused operator, sglang 0.5.23
    deepseek_v2_attention_mla_npu.py:175-198): no plain path, a person must say. Where every
    kernel unset runs is a custom op (``torch.ops._C_ascend.*``, vllm-ascend 182b75e
    mooncake_connector.py:1120-1339), whose machine the code does not say, the tree may be
    that machine's, and its operators its plain path: ``gpu``."""
    if gpu.value is None:
        return gpu
    runs = [b for b in judged.branches if any(b.runs(gpu.value) or ())]
    other = sorted(judged._under(runs, gpu.value, "foreign"), key=_mark_order)
    if not other or all(m.kind is MarkKind.CUSTOM_OP for m in judged._reach(None)):
        return gpu
    return Evidence(
        Role.UNKNOWN,
        f"{gpu.reason}; but {gpu.value!r} runs {other[0].shown()}, an operator only a "
        "machine without a GPU (an NPU, the CPU) runs, in its place: not a plain path; a "
        "person must say",
    )


def _mark_order(mark: Mark) -> tuple[str, int, str]:
    return (mark.path, mark.line, mark.what)


def _with_partners(partnered: Sequence[Partner]) -> str:
    """What the kernel switches a value needs beside it do (``scanner.reach.partners``)."""
    if not partnered:
        return ""
    shown = " and ".join(p.described() for p in partnered)
    return f" once {shown}, where it reaches a kernel of its own"


def _swapped(shown: Sequence[str]) -> str:
    """What a reason says of the tests where each side calls one library."""
    if not shown:
        return ""
    return f" (but {'; '.join(shown)}: the code does not tell its kernels apart)"


def _handed_in(instead: Sequence[Branch], returning: Sequence[Branch]) -> list[str]:
    """The calls of a function of an object handed in (scanner.reach.handed) that the code
    run in a branch's place makes itself: the branches ``instead``, and what runs after each
    of ``returning`` where it returns."""
    found = [a for b in instead for a in handed_calls(b.module, b.code, b.owner)]
    for side in returning:
        found += handed_calls(side.module, _after_return(side), side.owner)
    return sorted(found)


def _after_return(branch: Branch) -> tuple[ast.stmt, ...]:
    """The statements that run after the ``if`` whose side ``branch`` is, up to the end of
    its function, where that side returns (what runs in its place when it does not run)."""
    module = branch.module
    node: ast.AST | None = module.parent(branch.test)
    if (
        not isinstance(node, ast.If)
        or node.test is not branch.test
        or not isinstance(branch.code, tuple)
        or not branch.code
        or branch.code[0] is not node.body[0]  # the if's own body, not what follows it
        or not any(isinstance(n, ast.Return) for s in branch.code for n in walk(s))
    ):
        return ()
    after: list[ast.stmt] = []
    while node is not None and not isinstance(
        node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Module
    ):
        outer = module.parent(node)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(outer, field, None)
            if isinstance(block, list) and node in block:
                after.extend(block[block.index(node) + 1 :])
                break
        node = outer
    return tuple(after)


def _outside(marks: frozenset[Mark], lost: Sequence[Branch], stays: str | None) -> frozenset[Mark]:
    """``marks`` less those that lie in the code of a branch of ``lost`` that never runs
    under ``stays``: what runs instead reaches those only by coming back through that branch
    (a helper that tests the same variable again: ``reference()`` -> ``apply_qk_norm_rope``,
    sglang multimodal_gen/runtime/models/dits/joy_image.py:116 -> layers/layernorm.py:1206),
    so never."""
    spans = [
        (b.module.rel, b.code[0].lineno, max(s.end_lineno or s.lineno for s in b.code))
        for b in lost
        if isinstance(b.code, tuple) and b.code and not any(b.runs(stays) or (True,))
    ]
    return frozenset(
        m
        for m in marks
        if not any(m.path == rel and first <= m.line <= last for rel, first, last in spans)
    )


def _replaces(branch: Branch) -> bool:
    """Whether leaving ``branch`` leaves something else in its place: a registered
    function's original, a ternary's other value, the code after a branch that returns, or
    a name the branch rebinds that held a value before it (``jit_fuser = lazy_compile``,
    ``x = fused(x)``)."""
    if branch.replaces or isinstance(branch.code, ast.expr):
        return True
    if any(isinstance(n, ast.Return) for s in branch.code for n in walk(s)):
        return True  # it returns: the code after it runs in its place
    stored = {
        node.id
        for statement in branch.code
        for node in walk(statement)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id != "_"
    }  # ``_`` holds what no one reads (``_, m1b = benchmark_backward(...)``)
    line = branch.test.lineno
    scope: ast.AST = branch.module.function_node_around_line(line) or branch.module.tree
    if _kept_before(branch, scope, line) or only_sets_kept(branch.module, branch.code):
        return True
    if any(_rewraps(branch.module, s) for s in branch.code) or _calls_rewrap(branch):
        return True
    if not stored:
        return False
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        arguments = scope.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        if stored & {a.arg for a in every}:
            return True
    return any(
        isinstance(node, ast.Name)
        and isinstance(node.ctx, ast.Store)
        and node.id in stored
        and node.lineno < line
        for node in walk(scope)
    )


def _rewraps(module: Module, statement: ast.AST) -> bool:
    """``layer.forward = torch.compile(layer.forward)``: a rebinding of what the value it
    binds wraps, which held that value before it (xtuner model/dense/dense.py:248-250), or
    wraps a local bound to it (``module = self.modules[name]`` then ``self.modules[name] =
    torch.compile(module)``, fastvideo pipelines/composed_pipeline_base.py:143, :169)."""
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return False
    target = statement.targets[0]
    if not isinstance(target, ast.Name | ast.Attribute | ast.Subscript):
        return False
    shown = ast.dump(target, include_attributes=False).replace("Store()", "Load()")
    inside = list(walk(statement.value))
    if any(
        isinstance(node, type(target)) and ast.dump(node, include_attributes=False) == shown
        for node in inside
    ):
        return True
    names = {node.id for node in inside if isinstance(node, ast.Name)}
    return bool(names) and bool(names & _holding(module, statement, shown))


def _holding(module: Module, statement: ast.Assign, shown: str) -> set[str]:
    """The locals of the function around ``statement`` bound, before it, to the value its
    target shows (``shown``, dumped)."""
    function = module.function_node_around(statement)
    if function is None:
        return set()
    return {
        node.targets[0].id
        for node in walk(function)
        if isinstance(node, ast.Assign)
        and node.lineno < statement.lineno
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and ast.dump(node.value, include_attributes=False) == shown
    }


def _calls_rewrap(branch: Branch) -> bool:
    """A statement of ``branch`` that calls a method of its class (``self.m(...)``) in
    which an assignment rebinds what it wraps (``_rewraps``): the old value stays where the
    branch does not run (fastvideo composed_pipeline_base.py:208-212, :169)."""
    module, owner = branch.module, branch.owner
    if not isinstance(branch.code, tuple) or owner is None:
        return False
    local = owner[len(module.name) + 1 :] if owner.startswith(f"{module.name}.") else owner
    for statement in branch.code:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == "self"
        ):
            continue
        method = module.definitions.get(f"{local}.{call.func.attr}")
        if isinstance(method, ast.FunctionDef) and any(
            _rewraps(module, node) for node in walk(method) if isinstance(node, ast.Assign)
        ):
            return True
    return False


def _is_rest(branch: Branch) -> bool:
    """Whether ``branch`` is the code after an ``if`` with no ``else`` whose body leaves
    the function: what runs when the body does not."""
    node = branch.module.parent(branch.test)
    return (
        not branch.holds
        and isinstance(node, ast.If)
        and node.test is branch.test
        and not node.orelse
        and isinstance(branch.code, tuple)
        and bool(branch.code)
        and branch.code == branch.module.after(node)
    )


def _returns_kept(branch: Branch, rest: Branch) -> bool:
    """Whether a side that returns early gives back what the code after it (``rest``)
    gives back, bound before the side and not named by its other statements: the rest's
    work is done only on the way (xtuner b934f46 worker.py:725-734, :882: both return
    ``worker_log_item``; '1' skips the loss and every optimizer step), and nothing runs in
    its place. ``return model.forward`` against ``return torch.compile(model.forward)`` is
    a value in the place of another; a side that fills ``out`` and returns it (unsloth_zoo
    moe_grouped_fp16.py:504-510) computes in the rest's place."""
    code = branch.code
    if not isinstance(code, tuple) or not code or not isinstance(code[-1], ast.Return):
        return False
    value = code[-1].value
    if value is None or not isinstance(rest.code, tuple):
        return False
    named = {n.id for n in walk(value) if isinstance(n, ast.Name)}
    # a name the side binds, or hands to a call that may fill it (``out=``), is its making
    if any(
        isinstance(node, ast.Name) and node.id in named
        for statement in code[:-1]
        for node in walk(statement)
    ):
        return False
    given = ast.dump(value)
    returns = [
        node for statement in rest.code for node in walk(statement) if isinstance(node, ast.Return)
    ]
    return bool(returns) and all(
        r.value is not None and ast.dump(r.value) == given for r in returns
    )


def _acts(branch: Branch) -> bool:
    """Whether ``branch`` has code that does something: not only ``pass``, ``...`` or a
    string (Primus v4_csa_attention_bwd.py:413-428: ``else: pass``, "so the variant truly
    drops" the atomic and the work before it)."""
    code = branch.code
    if not isinstance(code, tuple):
        return True
    return any(
        not isinstance(s, ast.Pass)
        and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        for s in code
    )


def _kept_before(branch: Branch, scope: ast.AST, line: int) -> bool:
    """Whether the branch sets an attribute of the object (``self.comm = Comm(...)``) that
    its function set before it (``self.comm = None``): the earlier value stays in its place."""
    if not isinstance(branch.code, tuple):
        return False
    kept = {
        node.attr
        for statement in branch.code
        for node in walk(statement)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }
    return bool(kept) and any(
        isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and node.attr in kept
        and node.lineno < line
        for node in walk(scope)
    )


def _overrides_torch(module: Module) -> str | None:
    """Where ``module`` replaces torch's own operators (``torch.library.Library("aten",
    "IMPL")``, as batch-invariant modes do), or None."""
    for call in module.calls_named("Library"):
        if (
            module.resolve_api(call.func) == "torch.library.Library"
            and len(call.args) >= 2
            and isinstance(call.args[0], ast.Constant)
            and call.args[0].value == "aten"
            and isinstance(call.args[1], ast.Constant)
            and call.args[1].value == "IMPL"
        ):
            return f"torch.library.Library('aten', 'IMPL') at {module.rel}:{call.lineno}"
    return None


def summarized(found: Found, inside: bool = False) -> Summary:
    """What ``found`` holds, as the sets a role is judged by; ``inside``: the code runs in a
    Triton kernel, whose helpers it calls are that kernel (``scanner.reach.in_kernel``)."""
    kinds = KERNEL_MARKS - SAME_KERNEL if inside else KERNEL_MARKS
    every = frozenset(m for m in found.marks if m.kind in kinds)
    kernel = every - found.elsewhere
    return Summary(
        unseen=bool(found.unseen),
        kernel=kernel,
        kernel_always=frozenset(m for m in kernel if m in found.always),
        modes=frozenset(
            m for m in found.marks if m.kind is MarkKind.DETERMINISM and m in found.always
        ),
        elsewhere=every - kernel,
        elsewhere_always=frozenset(m for m in every - kernel if m in found.always),
        foreign=frozenset(m for m in every - kernel if m in found.foreign and m in found.always),
    )


@dataclass(frozen=True, slots=True)
class Summary:
    """What one branch reaches, as sets: the kernels, those it always reaches, the modes."""

    unseen: bool  # it calls a module of the tree's packages the tree lacks
    kernel: frozenset[Mark]
    kernel_always: frozenset[Mark]
    modes: frozenset[Mark]  # those it always reaches: a mode one path of it may set is none
    # The kernels it reaches only on a machine without a GPU (left out of ``kernel``).
    elsewhere: frozenset[Mark] = frozenset()
    elsewhere_always: frozenset[Mark] = frozenset()
    # Of those, the operators of such a machine it always calls, unguarded (Found.foreign):
    # where it may also take a path a GPU runs, that path may be its plain one.
    foreign: frozenset[Mark] = frozenset()


class _Judged:
    def __init__(
        self, code: CodeReach, knob: Knob, found: list[Branch], *, everywhere: bool = False
    ) -> None:
        self.code = code
        self.everywhere = everywhere  # the kernels of every machine, not a GPU's alone
        self.knob = knob
        self.branches = [b for b in found if not b.check]
        self.raising = [b for b in found if b.raises and not caught_here(b)]
        self.all = found
        self._onlies: dict[tuple[str | None, str | None], list[Branch]] = {}
        self._weighed: list[str] = []
        self._decided: dict[tuple[int, str | None], Summary] = {}
        self._enclosing: dict[int, list[Branch]] | None = None
        self._general: list[Fallback | None] = []
        self._fallbacks: dict[int, frozenset[Mark]] = {}
        self._partners: dict[str, tuple[Partner, ...]] = {}

    def evidence(self) -> Evidence | None:
        values = self._values()
        self._weighed = values
        if self.knob.kind is GateKind.VALUE:
            # A choice no test names (the dispatch's fall-through: ``# eager``) first: what
            # the code runs when no kernel is chosen, before a choice of its own code.
            values = sorted(values, key=lambda v: any(self._specific(b, v) for b in self.branches))
        doubt: Evidence | None = None  # a value that only skips a kernel: if nothing else
        # A value one site reads as on and another as off (``"on"``, where one accessor knows
        # the word and another does not) is weighed after every value all sites agree on.
        both = _read_both_ways(self.knob) if self.knob.kind is not GateKind.VALUE else set()
        for group in ([v for v in values if v not in both], [v for v in values if v in both]):
            for judge in (
                self._turns_off,
                self._leaves_hazard,
                self._turns_on_mode,
                self._turns_on,
                self._both_kernels,
            ):
                for value in group:
                    found = judge(value)
                    if found is not None and found.role is Role.UNKNOWN:
                        doubt = doubt or found
                    elif found is not None:
                        return found
        return doubt

    def _values(self) -> list[str]:
        """The set values to weigh against the unset one: the knob's off and on values
        first, then every other value the probes tried, one of each that runs the same
        branches. A value knob (a size, a path, a backend name) is weighed only with the
        strings its code compares it with: a choice, never a switch."""
        # A value knob read as a switch that unset leaves to the code (``maybe_convert_bool``,
        # vllm 0.33.0 envs.py:2245-2253) is weighed with the values that force it off.
        forced = [
            v for s in self.knob.sites if s.gate.reason == TRI_STATE for v in s.gate.off_values
        ]
        seen = [self.knob.off_value, self.knob.on_value, *forced]
        for branch in self.all:
            seen.extend(branch.taken)
        compared = {s for branch in self.all for s in branch.strings()}
        if self.knob.kind is GateKind.VALUE:
            compared |= site_compared(self.knob, self.code.tree)
        seen.extend(sorted(compared))
        values = [v for v in dict.fromkeys(seen) if v is not None]
        if self.knob.kind is GateKind.VALUE:
            values = [
                v for v in values if v.lower() not in SWITCH_WORDS or v in compared or v in forced
            ]
        signatures: dict[tuple[tuple[bool, ...] | None, ...], str] = {}
        for value in values:
            signatures.setdefault(tuple(b.runs(value) for b in self.branches), value)
        return list(signatures.values())

    def _only(self, first: str | None, second: str | None) -> list[Branch]:
        """The branches that run under ``first`` and not ``second`` for some choice of the
        rest of their tests."""
        key = (first, second)
        known = self._onlies.get(key)
        if known is None:
            known = []
            if self._enclosing is None:
                self._enclosing = enclosing(self.all)
            for branch in self.branches:
                outers = self._enclosing.get(id(branch), ())
                under = runs_within(branch, outers, first)
                other = runs_within(branch, outers, second)
                if (
                    under is not None
                    and other is not None
                    and any(a and not b for a, b in zip(under, other, strict=True))
                ):
                    known.append(branch)
            self._onlies[key] = known
        return known

    def _reach(self, value: str | None) -> frozenset[Mark]:
        """Every kernel ``value`` may reach: that of each branch it runs for some choice of
        the rest of its tests (a branch only the other value decides runs under it too
        when another condition of its test sends it there), as it runs under ``value``."""
        return self._under([b for b in self.branches if any(b.runs(value) or ())], value, "kernel")

    def _union(self, chosen: Sequence[Branch], part: str) -> frozenset[Mark]:
        found: frozenset[Mark] = frozenset()
        for branch in chosen:
            found |= self._part(self.code.summary(branch), part)
        return found

    def _part(self, summary: Summary, part: str) -> frozenset[Mark]:
        """``summary``'s ``part``, with the kernels of machines without a GPU where they count."""
        found: frozenset[Mark] = getattr(summary, part)
        if self.everywhere and part.startswith("kernel"):
            found |= getattr(summary, part.replace("kernel", "elsewhere"))
        return found

    def _under(self, chosen: Sequence[Branch], value: str | None, part: str) -> frozenset[Mark]:
        """``_union``, each branch's code as it runs under ``value`` (the tests of the value
        inside it decided: ``scanner.reach.nested``)."""
        found: frozenset[Mark] = frozenset()
        for branch in chosen:
            key = (id(branch), value)
            summary = self._decided.get(key)
            if summary is None:
                code = decided_code(branch, self.all, value)
                summary = (
                    self.code.summary(branch)
                    if code is None
                    else self.code.summary_of(branch, code)
                )
                self._decided[key] = summary
            found |= self._part(summary, part)
        return found

    def _witness(
        self, chosen: Sequence[Branch], marks: frozenset[Mark]
    ) -> tuple[Mark, Branch, tuple[Step, ...]]:
        """Of ``marks``, the one shown as the evidence (the fewest calls away, then by
        place), with the branch and the calls that reach it."""
        best: tuple[tuple[int, str, int, str], Mark, Branch, tuple[Step, ...]] | None = None
        for branch in chosen:
            for mark, steps in self.code.found(branch).marks.items():
                if mark in marks:
                    key = (len(steps), mark.path, mark.line, mark.what)
                    if best is None or key < best[0]:
                        best = (key, mark, branch, steps)
        assert best is not None
        return best[1], best[2], best[3]

    def _left(self, gone: str | None, stays: str | None) -> tuple[list[Branch], frozenset[Mark]]:
        """The kernels the branches that run under ``gone`` and not ``stays`` reach, and
        what runs instead under ``stays`` does not; none when what runs instead always
        reaches a kernel of its own. For a choice, what runs instead is the code only that
        choice runs (``if be == "triton_v1": return v1(...)``, all it reaches) and what the
        other branches always reach: the rest of a dispatch is other choices' code."""
        lost = self._only(gone, stays)
        instead = self._only(stays, gone)
        fallen = self._fallen(lost)  # what a flag the lost code sets runs in its place
        if self.knob.kind is GateKind.VALUE:
            specific = [b for b in instead if self._specific(b, stays) or self._any_set(b)]
            general = [b for b in instead if b not in specific]
            # a choice ``stays`` keeps from the unset run (``if not f or "x" in f:`` each adds
            # one implementation) is what it runs, not code every value runs
            kept = [b for b in self.branches if b not in lost and self._keeps(b, stays)]
            reached = (
                self._under(specific, stays, "kernel")
                | self._union(general, "kernel_always")
                | self._under(kept, stays, "kernel")
            )
            left = self._under(lost, gone, "kernel") - reached - _outside(fallen, lost, stays)
            return lost, (frozenset() if reached else left)
        # a kernel the lost code calls itself is not reached by coming back to it
        shared = _outside(self._under(instead, stays, "kernel") | fallen, lost, stays)
        left = self._under(lost, gone, "kernel") - shared
        # a kernel both sides always reach (the code after the branch, a helper each
        # calls) is evidence for neither: only one what runs instead reaches of its own
        own = self._under(instead, stays, "kernel_always") - self._under(
            lost, gone, "kernel_always"
        )
        # each side of one test calls the same kernel library: evidence for neither
        swapped = self._same_library(lost, instead)[0]
        left, own = left - swapped, own - swapped
        if not left or own:
            return lost, frozenset()
        # what runs instead calls code the tree lacks, and the lost code does not call it too
        # (vllm-ascend's generated vllm_ascend/_build_info.py, read on both sides through
        # get_ascend_device_type: a kernel there would be reached by both)
        lacked = {n for b in lost for n in self.code.found(b).unseen}
        if any(self.code.found(b).unseen - lacked for b in instead):
            return lost, frozenset()
        return lost, left

    def _same_library(
        self, lost: Sequence[Branch], instead: Sequence[Branch]
    ) -> tuple[frozenset[Mark], tuple[str, ...]]:
        """The library marks both sides of a test reach (``scanner.reach.same_library``)."""
        return same_library(lost, instead, lambda b: self._part(self.code.summary(b), "kernel"))

    def _fallen(self, lost: Sequence[Branch]) -> frozenset[Mark]:
        """The kernels the fallbacks of ``lost`` reach (``scanner.reach.fallbacks``)."""
        found: frozenset[Mark] = frozenset()
        for branch in lost:
            known = self._fallbacks.get(id(branch))
            if known is None:
                code = fallback_code(branch)
                reached = self.code.reach.of_statements(branch.module, code, branch.owner)
                known = self._fallbacks[id(branch)] = self._part(
                    summarized(reached, in_kernel(branch)), "kernel"
                )
            found |= known
        return found

    def _specific(self, branch: Branch, value: str | None) -> bool:
        """Whether ``branch`` runs under ``value`` and under no other value weighed."""
        for other in (None, *self._weighed):
            if other != value and any(branch.runs(other) or ()):
                return False
        return True

    def _keeps(self, branch: Branch, value: str | None) -> bool:
        """Whether ``branch`` runs under ``value`` and unset, and not under some other
        value weighed: a choice both make, not code the variable does not decide."""
        if value is None or not any(branch.runs(value) or ()) or not any(branch.runs(None) or ()):
            return False
        return any(not any(branch.runs(other) or (True,)) for other in self._weighed)

    def _any_set(self, branch: Branch) -> bool:
        """Whether ``branch`` runs under every value weighed that decides it (two at least)
        and not unset (``if x is not None:``): code any value set runs, not another
        choice's."""
        known = [r for v in self._weighed if v is not None and (r := branch.runs(v)) is not None]
        return len(known) >= 2 and all(any(r) for r in known) and not any(branch.runs(None) or ())

    def _breaks(self, value: str) -> bool:
        """Whether ``value`` makes a check stop the run that the variable unset passes (an
        ``assert`` of the carried value, ``if not x: raise``): no value a recipe writes."""
        for branch in self.raising:
            under, unset = branch.runs(value), branch.runs(None)
            if (
                under is not None
                and unset is not None
                and any(a and not b for a, b in zip(under, unset, strict=True))
            ):
                return True
        return False

    def _turns_off(self, value: str) -> Evidence | None:
        if self._breaks(value):
            return None
        lost, left = self._left(None, value)
        if not left:
            return None
        mark, branch, steps = self._witness(lost, left)
        computed = any(s.gate.reason == COMPUTED_UNSET for s in self.knob.sites)
        runs = "may run" if computed else "runs"  # unset, what the run computes decides
        rival = self._rival(value, lost, left)
        if rival is not None:
            return rival
        unread = sorted(a for b in self._only(value, None) for a in self.code.found(b).absent)
        if unread:
            return Evidence(
                Role.UNKNOWN,
                f"unset, it {runs} {branch.described()}, which reaches {_chain(steps, mark)}; "
                f"{self.knob.name}={value!r} runs code that calls {unread[0]}, which the tree "
                "does not define: what it runs is not known",
            )
        instead = self._only(value, None)
        if self.knob.kind is GateKind.VALUE:  # a choice's own code, not the rest of a dispatch
            instead = [b for b in instead if self._specific(b, value)]
        loaded = sorted(a for b in instead for a in self.code.found(b).loaded)
        returning = [] if self.knob.kind is GateKind.VALUE else self._only(None, value)
        for side in returning:  # a switch's: what runs after it, where it returns
            after = _after_return(side)
            if after:
                loaded += sorted(self.code.loads(side, after))
        if loaded:
            return Evidence(
                Role.UNKNOWN,
                f"unset, it {runs} {branch.described()}, which reaches {_chain(steps, mark)}; "
                f"{self.knob.name}={value!r} runs code that {_loading(loaded[0])} at run "
                f"time ({loaded[0]}): what it runs is not known",
            )
        handed = _handed_in(instead, returning)
        if handed:
            return Evidence(
                Role.UNKNOWN,
                f"unset, it {runs} {branch.described()}, which reaches {_chain(steps, mark)}; "
                f"{self.knob.name}={value!r} runs code that calls {handed[0]}, a function of "
                "an object its caller hands in: what it runs is not known",
            )
        on_way = None
        if self.knob.kind is not GateKind.VALUE:  # a choice's rest is other choices' code
            on_way = self._on_the_way(lost, left, instead, value)
        if on_way is not None:
            return Evidence(
                Role.UNKNOWN,
                f"unset, it {runs} {branch.described()}, which reaches {_chain(steps, mark)}; "
                f"{self.knob.name}={value!r} runs code that {on_way.text} too, which is on the "
                f"way to that kernel ({on_way.path}:{on_way.line}), where the calls followed "
                "stop: what it runs is not known",
            )
        if self.knob.kind is not GateKind.VALUE and not self._in_place(lost, value):
            skipped = self._skipped_as_fallback(value, branch.described(), _chain(steps, mark))
            if skipped is not None:
                return skipped
            return Evidence(
                Role.UNKNOWN,
                f"unset, it {runs} {branch.described()}, which reaches {_chain(steps, mark)}; "
                f"{self.knob.name}={value!r} skips that branch and runs nothing in its place, "
                "so the work it does may be left undone: a person must say",
            )
        trial = self._trial(lost)
        if trial is not None:
            return Evidence(
                Role.SAFETY,
                f"unset, it {runs} {branch.described()}, which reaches {_chain(steps, mark)}; "
                f"{self.knob.name}={value!r} skips that branch, a trial of that code whose "
                f"failure it turns into an error (raise at {trial}) and whose result it "
                "drops: a check, not a kernel choice",
            )
        quantizer = self._reaching(instead, MarkKind.QUANTIZER)
        if quantizer is not None:
            return Evidence(
                Role.UNKNOWN,
                f"unset, it {runs} {branch.described()}, which reaches {_chain(steps, mark)}; "
                f"{self.knob.name}={value!r} runs {quantizer}: a quantizer, so the value may "
                "change the weights themselves, not only the kernel: a person must say",
            )
        shared = {m for b in lost for m in self.code.found(b).marks}
        stream = self._reaching(instead, MarkKind.STREAM, shared)
        if stream is not None:
            return Evidence(
                Role.UNKNOWN,
                f"unset, it {runs} {branch.described()}, which reaches {_chain(steps, mark)}; "
                f"{self.knob.name}={value!r} runs {stream}: work on a CUDA stream of its own, "
                "whose order against the compute stream the code's waits decide, so what runs "
                "instead is no plain path: a person must say",
            )
        same = self._same_operation(lost, left)
        partnered = self._partners.get(value, ())
        swapped = self._same_library(lost, instead)[1]
        return Evidence(
            Role.KERNEL,
            f"unset, it {runs} {branch.described()}, which reaches {_chain(steps, mark)}; "
            f"{self.knob.name}={value!r} leaves that branch, and what runs instead reaches "
            "no such kernel" + _with_partners(partnered) + _swapped(swapped),
            value=value,
            default_reaches=True,
            same_operation=same,
            # where each side of a test calls one library, the value still runs its kernels
            leaves_every_kernel=not partnered and not swapped,
        )

    def _reaching(
        self, instead: Sequence[Branch], kind: MarkKind, but: Set[Mark] = frozenset()
    ) -> str | None:
        """The first branch of ``instead`` that reaches a mark of ``kind`` (a library's
        quantizer of weights, ``scanner.reach.quantizers``; a side CUDA stream) other than
        ``but`` (what the side left reaches too), with the chain, as the reason shows it."""
        for branch in instead:
            for mark, steps in self.code.found(branch).marks.items():
                if mark.kind is kind and mark not in but:
                    return f"{branch.described()}, which reaches {_chain(steps, mark)}"
        return None

    def _on_the_way(
        self, lost: Sequence[Branch], left: frozenset[Mark], instead: Sequence[Branch], value: str
    ) -> Step | None:
        """A call on the way from a branch left to one of its kernels ``left`` that the code
        run instead makes too, within the calls a branch is followed, though it is not shown
        to reach the kernel: the walk of that call stopped at the depth (lmdeploy's
        hy3.py:261, whose '1' side calls the same ``self.experts`` one call deeper)."""
        on_way: dict[str, tuple[int, Step]] = {}  # by the function called: the first call
        for branch in lost:
            for found_mark, found_steps in self.code.found(branch).marks.items():
                if found_mark in left:
                    for place, step in enumerate(found_steps):
                        known = on_way.get(step.target)
                        if step.target and (known is None or place < known[0]):
                            on_way[step.target] = (place, step)
        if not on_way:
            return None
        called: set[str] = set()
        for branch in instead:  # its code as it runs under ``value`` (as ``_under``)
            code = decided_code(branch, self.all, value)
            found = (
                self.code.found(branch)
                if code is None
                else self.code.reach.of_statements(branch.module, code, branch.owner)
            )
            called |= self.code.reach.called(found)
        shared = sorted((on_way[t][0], t) for t in on_way.keys() & called)
        return on_way[shared[0][1]][1] if shared else None

    def _skipped_as_fallback(self, value: str, described: str, reached: str) -> Evidence | None:
        """A kernel choice where ``value`` skips a branch with nothing in its place and that
        skip is the code's fallback (``scanner.reach.fallback``): every machine the test of
        the machine beside the read fails on (or the deterministic mode) skips it too, so
        the code runs without that work; None where the fallback is not ``value``."""
        general = self._fallback()
        if general is None or general.value != value:
            return None
        setting = f"{self.knob.name}={value!r}"
        return Evidence(
            Role.KERNEL,
            f"unset, it runs {described}, which reaches {reached}; {setting} skips that "
            f"branch and runs nothing in its place; at {general.where} {setting} decides the "
            f"test alone, while unset leaves it to `{general.machine}`: {setting} takes "
            f"{general.side}, its fallback",
            value=value,
            default_reaches=True,
        )

    def _trial(self, lost: Sequence[Branch]) -> str | None:
        """Where every branch left that reaches a kernel is a trial of code whose failure it
        turns into an error, in a function that returns nothing (``scanner.reach.trials``):
        the first such raise."""
        kernels = [b for b in lost if self._part(self.code.summary(b), "kernel")]
        found = [trial_raise(b) for b in kernels]
        return found[0] if kernels and all(found) else None

    def _same_operation(self, lost: Sequence[Branch], left: frozenset[Mark]) -> str | None:
        """Where every branch left that reaches a kernel of ``left`` computes one operation
        its test's other side computes too, what shows it (``scanner.reach.how``). A hazard
        only the side left reaches is not enough here: the side in its place may compute
        another thing (unsloth's UNSLOTH_COMPRESSED_TENSORS_INT4=0 re-quantizes the
        checkpoint to NF4, models/compressed_tensors_int4.py:19-20, :44-47)."""
        kernels = [b for b in lost if self._part(self.code.summary(b), "kernel") & left]
        shown = [same_operation(b) or dispatched(b, self.code.tree) for b in kernels]
        return shown[0] if kernels and all(shown) else None

    def _in_place(self, lost: Sequence[Branch], value: str) -> bool:
        """Whether something runs in the place of a branch that reaches a kernel, at the
        test that decides that branch (its other side has code, or it returns or rebinds
        what runs after it): code ``value`` runs at a test whose sides reach no kernel
        answers another question (unsloth's _gpu_init.py:854 skips a patch with nothing in
        its place; device_type.py:106 picks a device)."""
        instead = self._only(value, None)
        for branch in lost:
            if not self._part(self.code.summary(branch), "kernel"):
                continue  # a test whose side reaches no kernel asks another question
            sides = [b for b in instead if b.test is branch.test]
            if _is_rest(branch) and any(_returns_kept(b, branch) for b in sides):
                continue  # it gives back what the work after it gives back, undone
            if _replaces(branch) or any(_acts(b) for b in sides):
                return True
        return False

    def _rival(self, value: str, lost: Sequence[Branch], left: frozenset[Mark]) -> Evidence | None:
        """Where the default reaches its kernel only on some paths and what ``value`` runs
        instead reaches a kernel of its own on some paths too (``rope = FusedRope(...) if
        X else Rope(...)``, each class's ``forward`` dispatching to kernels), the code does
        not say that ``value`` leaves the kernels: a doubt."""
        if left & self._union(lost, "kernel_always"):
            return None
        instead = self._only(value, None)
        gained = self._under(instead, value, "kernel") - self._under(lost, None, "kernel")
        gained -= self._same_library(lost, instead)[0]  # the same library's: neither side's
        if not gained:
            return None
        if self._partnered(value, instead, self._under(lost, None, "kernel")):
            return None
        return self._each_own("may reach", value, (lost, left), (instead, gained))

    def _partnered(
        self, value: str, instead: Sequence[Branch], lost: frozenset[Mark]
    ) -> tuple[Partner, ...]:
        """The other kernel switches whose off values leave every kernel of its own that the
        code ``value`` runs instead reaches (``scanner.reach.partners``); none where some
        kernel is left."""
        known = self._partners.get(value)
        if known is not None:
            return known
        found = self.code.partners(self.knob, {b.module.rel for b in instead})
        used: list[Partner] = []
        for branch in instead if found else ():
            code = decided_code(branch, self.all, value) or branch.code
            if not isinstance(code, tuple):
                used = []
                break
            cut, cutting = partnered_code(branch, code, found)
            if self._part(self.code.summary_of(branch, cut), "kernel") - lost:
                used = []
                break
            used.extend(p for p in cutting if p not in used)
        self._partners[value] = tuple(used)
        return self._partners[value]

    def _turns_on(self, value: str) -> Evidence | None:
        gained, left = self._left(value, None)
        if not left:
            return None
        # unset may reach a CUDA graph capture of its own (a hook it adds, run under the
        # capture) where ``value``'s kernel adds none: ``value`` is the bitwise side. Only a
        # capture: another hazard the unset side may reach sits in a branch ``value`` may
        # also leave for reasons of its own (lmdeploy 0.18.0 backends/cuda/moe_router.py:
        # 75-88, 127-143: the fused router is eligible only where the autotuned one is not).
        instead = self._only(None, value)
        own = frozenset(
            m
            for m in self._under(instead, None, "kernel") - self._under(gained, value, "kernel")
            if m.kind is MarkKind.GRAPH
        )
        safer = safer_side((own, self._reach(None)), (left, self._reach(value))) if own else None
        if safer is not None and not safer.first:
            return self._safer(value, safer, (instead, own), (gained, left))
        mark, branch, steps = self._witness(gained, left)
        return Evidence(
            Role.KERNEL,
            f"{self.knob.name}={value!r} runs {branch.described()}, which reaches "
            f"{_chain(steps, mark)}; unset, it does not",
            value=value,
        )

    def _turns_on_mode(self, value: str) -> Evidence | None:
        chosen = self._only(value, None)
        # a mode the unset side reaches too is not what the value turns on
        modes = self._union(chosen, "modes") - self._union(self._only(None, value), "modes")
        if not modes:
            return self._own_backward(value, chosen)
        mark, branch, steps = self._witness(chosen, modes)
        if mark in branch.marks:  # the value itself is handed on as deterministic=
            key, _, where = mark.what.partition("=")
            where = "" if where == " handed on" else where  # the call's own, or followed
            return Evidence(
                Role.DETERMINISM,
                f"{self.knob.name}={value!r} makes {branch.described()} true, and it is "
                f"handed on as {key}={where}: a call's deterministic mode",
                value=value,
            )
        return Evidence(
            Role.DETERMINISM,
            f"{self.knob.name}={value!r} runs {branch.described()}, which reaches "
            f"{_chain(steps, mark)}: a deterministic mode",
            value=value,
        )

    def _own_backward(self, value: str, chosen: Sequence[Branch]) -> Evidence | None:
        """A deterministic path the value chooses: a gather with a backward of its own in
        place of an index gather whose compiled backward adds atomically
        (``scanner.reach.own_backward``)."""
        left = self._only(None, value)
        for branch in chosen:
            for other in left:
                shown = own_backward(branch, other)
                if shown is not None:
                    return Evidence(
                        Role.DETERMINISM,
                        f"{self.knob.name}={value!r} runs {shown}; unset runs the other "
                        f"side for some inputs {value!r} sends to the Function: the value "
                        "chooses the deterministic path",
                        value=value,
                    )
        return None

    def _leaves_hazard(self, value: str) -> Evidence | None:
        """A kernel choice where unset always reaches a kernel of its own with a hazard
        that ``value`` never reaches, and what ``value`` runs instead reaches, on some
        paths, only Triton code of its own with no hazard (``scanner.reach.hazards``):
        ``value`` leaves the hazard, where ``_turns_off`` finds a kernel in its place."""
        lost_branches, gained_branches = self._only(None, value), self._only(value, None)
        lost_all = self._union(lost_branches, "kernel")
        gained_all = self._union(gained_branches, "kernel")
        lost = self._union(lost_branches, "kernel_always") - gained_all
        gained = gained_all - lost_all
        if not lost or not gained:
            return None
        safer = safer_side((lost_all - gained_all, self._reach(None)), (gained, self._reach(value)))
        if safer is None or safer.first or safer.shared:
            return None
        return self._safer(value, safer, (lost_branches, lost), (gained_branches, gained))

    def _both_kernels(self, value: str) -> Evidence | None:
        lost_branches, gained_branches = self._only(None, value), self._only(value, None)
        # what each side always reaches and the other does not: a kernel both always reach
        # is evidence for neither. Each side as its value runs it: past ``if backend ==
        # "grouped_mm": return ...``, a dispatch's later tests of the value are decided
        # (unsloth_zoo moe_utils.py:2262-2267: "native_torch" never reaches the Triton GEMM)
        lost_always = self._under(lost_branches, None, "kernel_always")
        gained_always = self._under(gained_branches, value, "kernel_always")
        lost, gained = lost_always - gained_always, gained_always - lost_always
        lost_all = self._under(lost_branches, None, "kernel")
        gained_all = self._under(gained_branches, value, "kernel")
        if lost_always and gained_always and not (lost or gained):
            return self._same(value, lost_branches, gained_branches, lost_always)
        if not lost or not gained:
            return None
        safer = safer_side(
            (lost_all - gained_all, self._reach(None)), (gained_all - lost_all, self._reach(value))
        )
        if safer is not None:
            return self._safer(value, safer, (lost_branches, lost), (gained_branches, gained))
        general = self._fallback()
        if general is not None and general.value == value:
            return self._falls_back(general, (lost_branches, lost), (gained_branches, gained))
        side = self.code.mode_side(self.knob, lost_branches)
        if side is not None:
            return self._mode_takes(value, side, (lost_branches, lost), (gained_branches, gained))
        return self._each_own("reaches", value, (lost_branches, lost), (gained_branches, gained))

    def _mode_takes(
        self,
        value: str,
        side: ModeSide,
        unset: tuple[Sequence[Branch], frozenset[Mark]],
        other: tuple[Sequence[Branch], frozenset[Mark]],
    ) -> Evidence:
        """A kernel choice: the value that leaves, as the framework's deterministic mode
        does at the same test, the side unset takes."""
        first, _, first_steps = self._witness(*unset)
        second, _, second_steps = self._witness(*other)
        setting = f"{self.knob.name}={value!r}"
        return Evidence(
            Role.KERNEL,
            f"each value reaches a kernel of its own: unset, {_chain(first_steps, first)}; "
            f"{setting}, {_chain(second_steps, second)}; the deterministic mode "
            f"{side.mode.name}={side.value!r} leaves {side.branch.described()} too: "
            f"{setting} takes the side the framework takes when asked to be deterministic",
            value=value,
            default_reaches=True,
        )

    def _fallback(self) -> Fallback | None:
        """The value that takes the side the code runs on every machine (found once)."""
        if not self._general:
            switch = self.knob.kind is not GateKind.VALUE
            self._general.append(fallback(self.knob, self.code.tree, self.all) if switch else None)
        return self._general[0]

    def _falls_back(
        self,
        general: Fallback,
        unset: tuple[Sequence[Branch], frozenset[Mark]],
        other: tuple[Sequence[Branch], frozenset[Mark]],
    ) -> Evidence:
        """A kernel choice: the value that takes the code's fallback, the side every
        machine runs, where unset takes a side only some machines do."""
        first, _, first_steps = self._witness(*unset)
        second, _, second_steps = self._witness(*other)
        setting = f"{self.knob.name}={general.value!r}"
        return Evidence(
            Role.KERNEL,
            f"each value reaches a kernel of its own: unset, {_chain(first_steps, first)}; "
            f"{setting}, {_chain(second_steps, second)}; at {general.where} {setting} decides "
            f"the test alone, while unset leaves it to `{general.machine}`: "
            f"{setting} takes {general.side}, its fallback",
            value=general.value,
            default_reaches=True,  # unset, the side only some machines take runs
        )

    def _same(
        self,
        value: str,
        unset: Sequence[Branch],
        other: Sequence[Branch],
        marks: frozenset[Mark],
    ) -> Evidence:
        """Unknown: unset and ``value`` run branches of their own that reach the same kernels
        (the same function called with other arguments), so no kernel tells them apart."""
        first, _, first_steps = self._witness(unset, marks)
        second, _, second_steps = self._witness(other, marks)
        return Evidence(
            Role.UNKNOWN,
            f"each value reaches the same kernels: unset, {_chain(first_steps, first)}; "
            f"{self.knob.name}={value!r}, {_chain(second_steps, second)}: what tells the "
            "values apart is not a kernel the code shows; a person must say",
        )

    def _safer(
        self,
        value: str,
        safer: Safer,
        unset: tuple[Sequence[Branch], frozenset[Mark]],
        other: tuple[Sequence[Branch], frozenset[Mark]],
    ) -> Evidence:
        """A kernel choice: the side with no hazard of its own where the other has one is
        the value a bitwise recipe writes."""
        risky, safe = (other, unset) if safer.first else (unset, other)
        hazard, _, hazard_steps = self._witness(risky[0], frozenset({safer.hazard}))
        kernel, _, kernel_steps = self._witness(*safe)
        setting = f"{self.knob.name}={value!r}"
        hazardous, plain = ("unset", setting) if not safer.first else (setting, "unset")
        code = shown_code(safe[1])
        alone = f"{code} with no hazard"
        if safer.shared:
            kinds = " and ".join(k.value for k in safer.shared)
            alone = f"{code} and {kinds}, which {hazardous} reaches too"
        # a hazard whose result changes from run to run, only unset reaches: a bitwise run
        # leaves it whatever it computes (scanner.reach.how)
        leaves = not safer.first and safer.hazard.kind in RUN_TO_RUN
        return Evidence(
            Role.KERNEL,
            f"each value reaches a kernel of its own, and only {hazardous} reaches "
            f"{hazard.kind.value}: {_chain(hazard_steps, hazard)}; {plain}, "
            f"{_chain(kernel_steps, kernel)}, and all it alone reaches is {alone}",
            value=value,
            default_reaches=not safer.first,  # unset, the hazard runs; the value leaves it
            hazard_left=(
                f"only unset reaches {safer.hazard.kind.value}, which a bitwise run must leave"
                if leaves
                else None
            ),
        )

    def _each_own(
        self,
        verb: str,
        value: str,
        unset: tuple[Sequence[Branch], frozenset[Mark]],
        other: tuple[Sequence[Branch], frozenset[Mark]],
    ) -> Evidence:
        """Unknown: unset and ``value`` each reach (or ``verb``: may reach) a kernel of
        their own, shown by a witness of each side's kernels."""
        first, _, first_steps = self._witness(*unset)
        second, _, second_steps = self._witness(*other)
        return Evidence(
            Role.UNKNOWN,
            f"each value {verb} a kernel of its own: unset, {_chain(first_steps, first)}; "
            f"{self.knob.name}={value!r}, {_chain(second_steps, second)}",
            rivals=True,
        )


def _machine_test(knob: Knob) -> Evidence | None:
    """Unknown, for a knob read in a test of the machine the run is on (``def is_cpu():
    if os.getenv("X_USE_CPU_ENGINE") != "1": return False``): its value says where the run
    is, and every branch it decides is the code of another machine."""
    for site in knob.sites:
        function = site.function.rsplit(".", 1)[-1]
        if site.language is Language.PYTHON and site.decisions and is_platform_test(function):
            return Evidence(
                Role.UNKNOWN,
                f"it is read in {function}() ({site.path}:{site.line}), a test of the machine "
                "the run is on: its value chooses the machine's code, not a kernel; a person "
                "must say",
            )
    return None


def _declared_size(knob: Knob) -> Evidence | None:
    """Unknown, for a switch one site of which holds a value no switch has (``EnvInt(192)``,
    tested elsewhere as ``n <= 0 or tokens <= n``): 0 there is a size, not "off". So for a
    presence test of a number read elsewhere (``"X_CHUNK_MB" in os.environ`` beside
    ``int(os.environ.get("X_CHUNK_MB", "256"))``): whatever value sets it sets that size."""
    if knob.kind not in (GateKind.BOOLEAN, GateKind.PRESENCE):
        return None
    for site in knob.sites:
        default = site.default
        if (
            site.gate.kind is GateKind.VALUE
            and default is not None
            and default.lower() not in SWITCH_WORDS
            and default.lstrip("-").isdigit()
        ):
            return Evidence(
                Role.UNKNOWN,
                f"{site.path}:{site.line} declares it with the number {default}: a size or "
                "a count, whose values are not on and off; a person must say",
            )
    return None


def _read_both_ways(knob: Knob) -> frozenset[str]:
    """The values one site of a switch reads as off and another as on."""
    off = {v for site in knob.sites for v in site.gate.off_values}
    on = {v for site in knob.sites for v in site.gate.on_values}
    return frozenset(off & on)


def _documented(knob: Knob) -> Evidence | None:
    """What the trainer documents of the config key a launcher site of the knob sets: a
    switch handed to a boolean key, or a value handed to a key that names an implementation
    (``model.attention_backend="${X}"``), whose plain value is the table's."""
    if knob.kind is GateKind.VALUE:
        return _documented_choice(knob)
    if knob.kind not in (GateKind.BOOLEAN, GateKind.PRESENCE):
        return None
    for site in knob.sites:
        if site.language is Language.PYTHON:
            continue
        known = trainer_key(documented_key(site))
        if known is None or known.off is not None:
            continue
        kernel = known.role is Role.KERNEL
        if known.inverted and knob.default_on is not False:
            continue  # unset, the key's True already runs none of its kernels
        value = knob.off_value if kernel and not known.inverted else knob.on_value
        if value is None:
            continue
        return Evidence(
            known.role,
            f"it sets the config key {known.key} ({site.path}:{site.line}), which {known.source} "
            f"documents as {known.meaning}",
            value=value,
            default_reaches=known.inverted or (kernel and knob.default_on is True),
        )
    return None


def _documented_choice(knob: Knob) -> Evidence | None:
    """A kernel choice, for a value a launcher hands to an implementation key of the table
    (``ATTENTION_BACKEND=${ATTENTION_BACKEND:-auto}``, then ``model.attention_backend=
    "${ATTENTION_BACKEND}"``) whose default there is another of the key's values than its
    plain one: unset, the trainer runs the kernel the default names, and the plain value
    leads away from it. A default the key does not take (``sdpa``) says the key is another
    program's."""
    for site in knob.sites:
        if site.language is Language.PYTHON or site.default is None:
            continue
        known = trainer_key(documented_key(site))
        if known is not None and known.off is None and known.role is Role.KERNEL:
            found = _documented_word(site, site.default, known)
            if found is not None:
                return found
        if known is None or known.off is None or known.role is not Role.KERNEL:
            continue
        if site.default == known.off or site.default not in known.values:
            continue  # the plain value already, or another program's key of that name
        return Evidence(
            Role.KERNEL,
            f"it hands {site.default!r} to the config key {known.key} ({site.path}:{site.line}),"
            f" which {known.source} documents as {known.meaning}; {known.off!r} runs none of "
            "its kernels",
            value=known.off,
            default_reaches=True,
        )
    return None


def _documented_word(site: Site, default: str, known: TrainerKey) -> Evidence | None:
    """A kernel choice, for a value whose default is a boolean word a launcher hands to a
    boolean key of the table (``generator.inference_engine.enforce_eager=$ENFORCE_EAGER``,
    ``ENFORCE_EAGER="${ENFORCE_EAGER:-false}"``) where that default runs the key's kernel:
    the other word of the same spelling runs none."""
    if default in ON_WORDS:
        other = OFF_WORDS[ON_WORDS.index(default)]
    elif default in OFF_WORDS:
        other = ON_WORDS[OFF_WORDS.index(default)]
    else:
        return None
    if (default in ON_WORDS) == known.inverted:
        return None  # the default runs none of the key's kernels already
    return Evidence(
        Role.KERNEL,
        f"it hands {default!r} to the config key {known.key} ({site.path}:{site.line}), which "
        f"{known.source} documents as {known.meaning}; {other!r} runs none of it",
        value=other,
        default_reaches=True,
    )


# A default that leaves the setting empty (YAML's and Python's null): no choice is made.
_NULLS = ("null", "Null", "NULL", "None", "~")


def _undocumented(knob: Knob) -> Evidence | None:
    """Unknown, for a choice a launcher hands to a framework setting as an override
    (``model.multimodal_attn_impl="${X}"``) that the table of trainer settings does not
    hold: what its values do is in the program that reads the override."""
    if knob.kind is not GateKind.VALUE:
        return None
    for site in knob.sites:
        if site.override is None or site.default in (None, *_NULLS):
            continue
        key = documented_key(site)
        if key is None or trainer_key(key) is not None:
            continue
        return Evidence(
            Role.UNKNOWN,
            f"it hands {site.default!r} to the override {site.override} ({site.path}:"
            f"{site.line}), a setting of the program it starts that the table of trainer "
            "settings (scanner/reach/trainer_keys.py) does not hold: what its values do is "
            "in that program; a person must say",
        )
    return None


def _loading(entry: str) -> str:
    """What a side does at run time, by the call ``entry`` names (``subprocess.run at f:3``)."""
    return "starts a process" if entry.split(" ", 1)[0] in PROCESS_STARTERS else "loads a module"


def _chain(steps: tuple[Step, ...], mark: Mark) -> str:
    return " -> ".join([*(s.shown() for s in steps), mark.shown()])
