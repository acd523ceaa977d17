"""The branches a variable's value decides, found with ``ast`` from a site's decisions.

A test the probes saw (``scanner.interpret.decisions``) is found where it was placed, and
its two sides are the branches: an ``if``'s body and its ``else`` (or, when the body
always leaves, the statements after the ``if``), a ternary's two values, a ``while``'s
body. A value that leaves the site's function (returned, or stored in a module name or an
attribute) is followed to the tests that use it: calls of the function, loads of the name
(in its module and in the modules that import it), ``self.`` loads of the attribute in
its class; a caller that returns the value on, or stores it, carries it one step further.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from scanner.interpret.classify import COMPUTED_UNSET
from scanner.model import Decision, DecisionKind, GateKind, Outcome, Site
from scanner.reach.carriers import Carriers
from scanner.reach.config import key_branches
from scanner.reach.modules import Module, Tree
from scanner.reach.picked_returns import returned_rest
from scanner.reach.sides import TESTED, Branch, sides
from scanner.reach.uses import MAX_CARRY, local_tests, name_loads, returned_branches, uses
from scanner.source.ast_walk import walk


def branches(site: Site, tree: Tree, carriers: Carriers) -> list[Branch]:
    """Every branch the site's value decides."""
    if not site.decisions:
        return []  # nothing decided: the module need not be parsed
    module = tree.module_at(site.path)
    if module is None:
        return []
    found: list[Branch] = []
    for decision in site.decisions:
        if decision.kind is DecisionKind.READ:
            read = _read_node(module, site)
            # Where the probes followed what the function returns, its callers are theirs.
            returns = any(d.kind is DecisionKind.RETURN for d in site.decisions)
            depth = MAX_CARRY if returns else 0
            # Where they stored it in a module name, its loads are theirs too.
            stored = any(d.kind is DecisionKind.STORE for d in site.decisions)
            if read is not None:
                found.extend(
                    uses(
                        module,
                        read,
                        decision.outcomes,
                        tree,
                        carriers,
                        depth,
                        choices=_field_choice(site),
                        module_store=not stored,
                    )
                )
        elif decision.kind is DecisionKind.TEST:
            test = _find_test(module, decision, site)
            if test is not None:
                taken = _taken_by_outcomes(decision.outcomes)
                found.extend(sides(module, test, taken))
        elif decision.kind is DecisionKind.RETURN and decision.name and "<" not in decision.name:
            carried = module.qualified(decision.name)
            returned = [*decision.outcomes, *_computed_unset(site, decision)]
            rest = _returned_rest(module, site, returned)
            if rest is not None:
                returned.extend(rest[0])
            choices = rest is not None and rest[1]
            found.extend(
                returned_branches(module, carried, returned, tree, carriers, 0, choices=choices)
            )
        elif decision.kind is DecisionKind.STORE and decision.name:
            found.extend(_stored(module, site, decision, tree, carriers, 0))
    return found


def _field_choice(site: Site) -> bool:
    """Whether the site is a value stored in a field of another object (a config file's
    ``cfg.attention.backend = read``, ``scanner.interpret.stored_choices.config_field``):
    the strings the field's readers compare it with are its choices, weighed as values."""
    return site.gate.kind is GateKind.VALUE and any(
        d.kind is DecisionKind.STORE and d.store == "other" for d in site.decisions
    )


def _returned_rest(
    module: Module, site: Site, returned: Sequence[tuple[str | None, Outcome]]
) -> tuple[list[tuple[str | None, Outcome]], bool] | None:
    """What the function returns under the values the probes read but saw no return for,
    and whether it gives other names back unchanged (``picked_returns.returned_rest``)."""
    read = next((d for d in site.decisions if d.kind is DecisionKind.READ), None)
    node = _read_node(module, site) if read is not None else None
    if read is None or node is None:
        return None
    return returned_rest(module, node, returned, read.outcomes)


def _computed_unset(site: Site, decision: Decision) -> list[tuple[str | None, Outcome]]:
    """Both truths for the variable unset, where the function returns a truth for every
    value set and, unset, what the run computes (mamba_ssm utils/determinism.py:21-27:
    ``if env: return env[0] == '1'`` / ``return torch.are_deterministic_algorithms_enabled()``):
    which one the run gives is one more choice of the rest (``sides.alternatives``)."""
    if site.gate.reason != COMPUTED_UNSET or any(v is None for v, _ in decision.outcomes):
        return []
    if not all(isinstance(o, bool) for _, o in decision.outcomes):
        return []
    return [(None, True), (None, False)]


def _taken_by_outcomes(
    outcomes: Sequence[tuple[str | None, Outcome]],
) -> dict[str | None, tuple[bool, ...]]:
    return {value: (bool(outcome),) for value, outcome in outcomes}


def _find_test(module: Module, decision: Decision, site: Site) -> ast.expr | None:
    """The test a decision was placed at: the innermost one around the read, or the first
    of that text in the function whose ``def`` is on the decision's line."""
    if not decision.holds_read:
        function = module.function_at(decision.line)
        if function is None or decision.name is None:
            return None
        return next(
            (
                node.test
                for node in walk(function)
                if isinstance(node, TESTED) and ast.unparse(node.test) == decision.name
            ),
            None,
        )
    best: ast.expr | None = None
    for node in module.tests_near(site.line):
        test = node.test
        if _spans(module, test, site.line, site.column) and (
            best is None
            or _spans(module, best, test.lineno, module.column(test.lineno, test.col_offset))
        ):
            best = test
    return best


def _spans(module: Module, node: ast.expr, line: int, column: int) -> bool:
    end_line = node.end_lineno or node.lineno
    start = (node.lineno, module.column(node.lineno, node.col_offset))
    end = (end_line, module.column(end_line, node.end_col_offset or 0))
    return start <= (line, column) < end


def _stored(
    module: Module, site: Site, decision: Decision, tree: Tree, carriers: Carriers, depth: int
) -> Iterator[Branch]:
    """The branches decided by loads of the module name or attribute the value is stored in."""
    name = decision.name
    assert name is not None
    if decision.store == "local":
        function = module.function_node_around_line(site.line)
        if function is not None:
            yield from local_tests(module, function, name, decision.outcomes, tree, carriers, depth)
        return
    if decision.store == "attr":
        owner = module.owner_class_at(site.line)
        for node in module.attribute_loads(name):
            if module.owner_class(node) == owner and owner is not None:
                yield from uses(module, node, decision.outcomes, tree, carriers, depth)
        return
    if decision.store == "key":  # setattr(args, key, value): the reads of that key
        yield from key_branches(name, list(decision.outcomes), tree, carriers)
        return
    if decision.store != "global":
        return
    # A class body's attribute (``class auto_chunker: enable = ...``) is read as
    # ``auto_chunker.enable``: the modules that name the class are those to search.
    classes = [
        s.name for s in module.locate.statements_at(site.line) if isinstance(s, ast.ClassDef)
    ]
    qualified = None
    if classes and module.function_node_around_line(site.line) is None:
        qualified = (module.qualified(f"{'.'.join(classes)}.{name}"), classes[0])
    for user, load in name_loads(module, name, tree, carriers, qualified):
        yield from uses(user, load, decision.outcomes, tree, carriers, depth)


def _read_node(module: Module, site: Site) -> ast.expr | None:
    """The node of the site's read: of the nodes that start where the site does, the
    innermost call (``os.environ.get(N)``, ``getenv_bool(N)``), else subscript, else
    attribute (``envs.N``)."""
    starting = [
        node
        for node in _nodes_on(module, site.line)
        if isinstance(node, ast.expr)
        and getattr(node, "lineno", None) == site.line
        and module.column(node.lineno, node.col_offset) == site.column
    ]
    for kind in (ast.Call, ast.Subscript, ast.Attribute):
        found: ast.expr | None = None
        for node in starting:
            if isinstance(node, kind) and (found is None or _inside(node, found)):
                found = node
        if found is not None:
            return found
    return None


def _inside(node: ast.expr, other: ast.expr) -> bool:
    end = (node.end_lineno or node.lineno, node.end_col_offset or 0)
    other_end = (other.end_lineno or other.lineno, other.end_col_offset or 0)
    return end < other_end


def _nodes_on(module: Module, line: int) -> Iterator[ast.AST]:
    """The nodes of the innermost statement at ``line``, and of the test of an ``if`` or
    ``while`` on that line whose body starts there too (``if os.environ.get(N) == "1":
    return False`` on one line, unsloth_zoo temporary_patches/moe_utils.py:2014: the
    innermost statement at the line is the ``return``)."""
    yield from module.locate.nodes_on(line)
    for statement in module.locate.statements_at(line)[:-1]:
        if isinstance(statement, ast.If | ast.While) and statement.test.lineno == line:
            yield from walk(statement.test)
