"""The reads of a field of one class's instances, where the code says the object is one.

predibase/lorax a7394ba: ``PunicaWrapper(..., enabled=not self.dynamic and not
LORAX_PUNICA_TRITON_DISABLED)`` (server/lorax_server/models/flash_causal_lm.py:1299-1306),
whose ``__init__`` keeps ``self.enabled = enabled`` (utils/punica.py:399-419), is tested as
``adapter_data.punica_wrapper.enabled`` (utils/layers.py:81-83), where the parameter is
annotated ``adapter_data: "AdapterBatchData"`` (utils/layers.py:70) and that dataclass declares
``punica_wrapper: "PunicaWrapper"`` (adapters/weights.py:108-118). A short field name such as
``enabled`` belongs to many classes, so a read is taken only where the object is known to be an
instance of the class: ``self`` in one of its methods, a parameter annotated with it, a local
bound only to its constructor, or a field of another such object declared or bound that way.
"""

from __future__ import annotations

import ast

from scanner.reach.carriers import Carriers
from scanner.reach.instance_types import class_of
from scanner.reach.modules import Module, Tree

MAX_MODULES = 200  # modules naming the field that are read for it
MAX_READS = 32  # reads of one field followed


def instance_reads(
    made: tuple[Module, str], attr: str, tree: Tree, carriers: Carriers
) -> list[tuple[Module, ast.Attribute]]:
    """The loads of ``attr`` on objects the code says are instances of the tree's class
    ``made`` (its module and local name)."""
    wanted = made[0].qualified(made[1])
    found: list[tuple[Module, ast.Attribute]] = []
    for rel in carriers.modules_naming(None, attr)[:MAX_MODULES]:
        module = tree.module(rel)
        if module is None:
            continue
        for load in module.loads_named(attr):
            if (
                isinstance(load, ast.Attribute)
                and class_of(module, load.value, tree) == wanted
                and len(found) < MAX_READS
            ):
                found.append((module, load))
    return found
