"""A variable whose value makes the code answer that the machine is the CPU.

Where one value makes a function return the device name ``"cpu"`` (or a name be bound
to it) and the variable unset does not (``def _cpu_fallback(): if os.environ.get(N) ==
"1": return "cpu"``), the value chooses which machine the program runs for: on a GPU it
makes the code take the CPU's way (stubs for the GPU's libraries, no device set up), and
whatever the branches it leaves reach, it is not a kernel choice of a GPU run. A bitwise
recipe is for a GPU run: unknown, a person must say (``scanner.reach.platforms`` judges
the kernels of such code the same way).
"""

from __future__ import annotations

from scanner.languages import Language
from scanner.model import DecisionKind, Knob, Role
from scanner.roles import Evidence
from scanner.suite_files import TEST_FILE

# torch's name of the CPU device (torch.device("cpu")).
_CPU = "cpu"


def machine_answer(knob: Knob) -> Evidence | None:
    """Unknown, for a knob one value of which makes the code answer ``"cpu"`` as the
    device where the variable unset does not; None otherwise."""
    for site in knob.sites:
        if site.language is not Language.PYTHON or TEST_FILE.search(site.path):
            continue
        for decision in site.decisions:
            if decision.kind not in (DecisionKind.RETURN, DecisionKind.STORE):
                continue
            answers = dict(decision.outcomes)
            unset = _is_cpu(answers.get(None))
            value = next((v for v, o in decision.outcomes if _is_cpu(o) != unset), None)
            if value is None:
                continue
            how = "returns" if decision.kind is DecisionKind.RETURN else "binds"
            where = decision.name or site.function
            chosen = "unset" if unset else f"{knob.name}={value!r}"
            other = f"{knob.name}={value!r}" if unset else "unset"
            return Evidence(
                Role.UNKNOWN,
                f"{chosen}, {where} {how} the device name 'cpu' ({site.path}:{site.line}); "
                f"{other}, it does not: its value chooses the machine the code runs for, not "
                "a kernel of a GPU run; a person must say",
            )
    return None


def _is_cpu(outcome: object) -> bool:
    return isinstance(outcome, str) and outcome.lower() == _CPU
