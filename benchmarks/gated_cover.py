"""Whether the code each triaged knob gates holds every kernel its branches reach.

    python benchmarks/gated_cover.py REGISTRY [KNOB...]

For each knob of the registry triaged `reproducible` or `breaks-bitwise` (or each KNOB
named): the Triton and autotuned kernels the scanner's reach finds behind the branches its
value decides, and how many of them lie in a unit of its gated code (scanner.gated), the
code a triage record keeps. A kernel left out would change without `knobs check` noticing.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from knobregistry._text.plural import counted
from knobregistry.project.scan_for import scan_for
from knobregistry.registry import Triage, load_registry
from scanner.code_units import nodes
from scanner.gated import gated_code
from scanner.reach.evidence import CodeReach
from scanner.reach.marks import MarkKind
from scanner.reach.modules import Tree

KERNELS = (MarkKind.TRITON, MarkKind.AUTOTUNE)
_VERDICTS = (Triage.REPRODUCIBLE, Triage.BREAKS_BITWISE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("registry", type=Path)
    parser.add_argument("knobs", nargs="*")
    args = parser.parse_args()
    registry = load_registry(args.registry.absolute())
    names = args.knobs or [n for n, e in registry.knobs.items() if e.triage in _VERDICTS]
    scan = scan_for(registry)
    gated = gated_code(scan, registry.root, names)
    tree = Tree({rel: (registry.root / rel, module) for rel, module in scan.modules})
    knobs = [k for k in (scan.knob(n) for n in names) if k is not None]
    code = CodeReach(tree, knobs)
    reached = covered = 0
    for knob in knobs:
        marks = {
            m for b in code.branches_of(knob) for m in code.found(b).marks if m.kind in KERNELS
        }
        spans = []
        for unit in gated.get(knob.name, ()):
            module = tree.module(unit.path)
            for node in nodes(module.tree, unit.name) if module is not None else ():
                lines = [getattr(node, "lineno", 0)]
                lines += [d.lineno for d in getattr(node, "decorator_list", [])]
                spans.append((unit.path, min(lines), getattr(node, "end_lineno", 0) or 0))
        missing = [
            m.shown()
            for m in sorted(marks, key=lambda m: (m.path, m.line))
            if not any(p == m.path and a <= m.line <= b for p, a, b in spans)
        ]
        reached += len(marks)
        covered += len(marks) - len(missing)
        units = len(gated.get(knob.name, ()))
        line = f"{knob.name}: {counted(units, 'unit')}; {len(marks) - len(missing)} of "
        line += counted(len(marks), "kernel")
        print(line + (f"; left out: {', '.join(missing)}" if missing else ""))
    print(f"{covered} of {reached} kernels the knobs' branches reach are in their gated code")


if __name__ == "__main__":
    main()
