"""The projects the rules' examples are made of: a package that reads one registered knob,
its registry, and the variations that several rules share (each rule's own are in its module).
"""

from __future__ import annotations

from collections.abc import Mapping

from knobregistry.check.diagnostics import Example, Files


def _files(files: Mapping[str, str]) -> Files:
    return tuple(sorted(files.items()))


def example(
    base: Mapping[str, str],
    *,
    invalid: Mapping[str, str],
    valid: Mapping[str, str],
    arguments: tuple[str, ...] = (),
) -> Example:
    """``base`` with the files of ``invalid`` added or replaced, and with those of ``valid``."""
    return Example(
        invalid=_files({**base, **invalid}), valid=_files({**base, **valid}), arguments=arguments
    )


# The inventory's examples: a package that reads one registered knob, and changes to it.
REGISTRY = """\
version: 1
scan:
  paths: [pkg]
knobs:
  PRIMUS_HC_TRITON:
    default: "1"
    default_on: true
    triage: breaks-bitwise
"""


MODEL = 'import os\n\nHC = os.environ.get("PRIMUS_HC_TRITON", "1") != "0"\n'


INVENTORY = {"registry.yaml": REGISTRY, "pkg/model.py": MODEL}


def entry(name: str, triage: str = "untriaged") -> str:
    """A registry entry for a knob on by default ("1")."""
    return f'  {name}:\n    default: "1"\n    default_on: true\n    triage: {triage}\n'


def registry_with(*names: str) -> str:
    """The inventory's registry, with an untriaged knob on by default for each name."""
    return REGISTRY + "".join(entry(name) for name in names)


# The profiles' examples: the inventory's project with a bitwise profile that keeps its promise.
def profiles(*, knobs: str = "", external: str = "", config: str = "", env: str = "") -> str:
    """The registry with more knobs, external variables, config keys and bitwise settings."""
    return (
        REGISTRY
        + knobs
        + "external:\n  PYTHONHASHSEED:\n    description: Python's hash seed.\n"
        + external
        + (f"config:\n{config}" if config else "")
        + "profiles:\n  bitwise:\n    description: Bit for bit.\n    kind: bitwise\n"
        + '    env:\n      PRIMUS_HC_TRITON: "0"\n      PYTHONHASHSEED: "0"\n'
        + env
    )


PROFILE = {"registry.yaml": profiles(), "pkg/model.py": MODEL}


DATACLASS = "from dataclasses import dataclass, field\n\n\n@dataclass\nclass "


NCCL_ALGO = "  NCCL_ALGO:\n    description: Collective algorithm.\n"
