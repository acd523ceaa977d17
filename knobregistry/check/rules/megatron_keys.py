"""KNB104 UnknownMegatronConfigKey, KNB105 MegatronKeysNotChecked: megatron config keys checked
against megatron-core's config dataclasses.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import TYPE_CHECKING

from knobregistry.check.backend_keys import Backend, backend_key_diagnostics
from knobregistry.check.diagnostics import Diagnostic, Family, Rule, Severity
from knobregistry.check.examples import DATACLASS, PROFILE, example, profiles

if TYPE_CHECKING:
    from knobregistry.profiles.megatron import MegatronFields, MegatronMissing
    from knobregistry.registry import Registry

FieldsLookup = Callable[[], "MegatronFields | MegatronMissing"]

# Stand-ins for megatron-core and torchtitan, found first on PYTHONPATH.
_MEGATRON = {
    "megatron/__init__.py": "",
    "megatron/core/__init__.py": "",
    "megatron/core/model_parallel_config.py": (
        DATACLASS + "ModelParallelConfig:\n    deterministic_mode: bool = False\n"
    ),
}


def _megatron_key(name: str) -> str:
    return f"  {name}:\n    backend: megatron\n    description: Deterministic kernels.\n"


# KNB104's section of docs/profiles.md, below its heading (the site renders it there).
KNB104_SECTION = """\
A config key declared `backend: megatron` must be a field of megatron-core's
config dataclasses (`ModelParallelConfig`, `TransformerConfig`,
`MLATransformerConfig`, `OptimizerConfig`, `DistributedDataParallelConfig`, read
with `dataclasses.fields`). Some Megatron settings are command-line arguments of
Megatron-LM's trainer instead (`seed`, `data_parallel_random_init`): mark those
with `argument`, and they are not looked up.

```yaml
config:
  seed:
    backend: megatron
    description: Master random seed.
    argument: --seed
```

```
registry.yaml:25:3: KNB104 error: config key 'moe_router_force_load_balancing_type' is declared `backend: megatron`, but megatron-core 0.16.1 defines no field of that name in ModelParallelConfig, TransformerConfig, MLATransformerConfig, OptimizerConfig, DistributedDataParallelConfig.
    rename it to 'moe_router_force_load_balancing' (TransformerConfig); or if it is a Megatron command-line argument, add `argument: --moe-router-force-load-balancing-type` under config.moe_router_force_load_balancing_type; if Primus adds it, write `backend: primus`.
```
"""  # noqa: E501

KNB104 = Rule(
    code="KNB104",
    name="UnknownMegatronConfigKey",
    title=(
        "A config key declared `backend: megatron` is no field of megatron-core's config classes."
    ),
    description=(
        "A trainer-config key declared `backend: megatron` is not a field of megatron-core's "
        "config dataclasses (checked when megatron-core is installed): the overlay would set "
        "a key Megatron ignores or rejects."
    ),
    example=(
        "config:\n"
        "  deterministic_mod:    # no field of megatron-core's config classes\n"
        "    backend: megatron"
    ),
    examples=example(
        {**PROFILE, **_MEGATRON},
        invalid={"registry.yaml": profiles(config=_megatron_key("deterministic_mod"))},
        valid={"registry.yaml": profiles(config=_megatron_key("deterministic_mode"))},
    ),
    page="profiles.md",
    section=KNB104_SECTION,
    family=Family.PROFILES,
    help=(
        "Fix the name; mark a Megatron command-line argument with `argument: --name`; or "
        "declare the key's real backend (primus, for keys Primus adds)."
    ),
)

# KNB105's section of docs/profiles.md, below its heading (the site renders it there).
KNB105_SECTION = """\
megatron-core (and the torch it imports) is an optional dependency. Without it,
the megatron keys are not checked, and one note says so; it does not fail the
check.

```
registry.yaml:346:3: KNB105 note: megatron-core is not installed, so 5 config keys declared `backend: megatron` (deterministic_mode, cross_entropy_loss_fusion, gradient_accumulation_fusion, moe_permute_fusion, moe_use_legacy_grouped_gemm) were not checked against its config dataclasses.
    pip install megatron-core
```
"""  # noqa: E501

KNB105 = Rule(
    code="KNB105",
    name="MegatronKeysNotChecked",
    title="megatron-core is not installed, so the megatron config keys were not checked.",
    description=(
        "megatron-core could not be imported, so the config keys declared `backend: megatron`"
        " were not checked against its dataclasses. A note: it does not fail the check."
    ),
    example=(
        "config:\n  deterministic_mode:\n    backend: megatron    # megatron-core is not installed"
    ),
    examples=example(
        {**PROFILE, "registry.yaml": profiles(config=_megatron_key("deterministic_mode"))},
        invalid={"megatron/__init__.py": ""},
        valid=_MEGATRON,
    ),
    page="profiles.md",
    section=KNB105_SECTION,
    family=Family.PROFILES,
    help=(
        "Install megatron-core in the environment that runs `knobs check` (pip install "
        "megatron-core) to check them."
    ),
    severity=Severity.NOTE,
)


def _unknown(key: str, fields: MegatronFields) -> str:
    return (
        f"config key '{key}' is declared `backend: megatron`, but megatron-core "
        f"{fields.version} defines no field of that name in {', '.join(fields.classes)}."
    )


def megatron_key_diagnostics(
    registry: Registry, shown: str, lookup: FieldsLookup | None = None
) -> list[Diagnostic]:
    """Every `backend: megatron` key without `argument` must be a config-dataclass field.

    ``shown`` is the registry file as messages show it. megatron-core is imported
    only when there is a key to check (by ``lookup``; by default, the one installed).
    """
    from knobregistry.profiles.megatron import megatron_fields

    return backend_key_diagnostics(registry, shown, MEGATRON, lookup or megatron_fields)


def _fix(key: str, fields: MegatronFields) -> str:
    close = difflib.get_close_matches(key, list(fields.fields), n=1, cutoff=0.8)
    rename = f"rename it to '{close[0]}' ({fields.fields[close[0]]}); or " if close else ""
    argument = "--" + key.replace("_", "-")
    return (
        f"{rename}if it is a Megatron command-line argument, add `argument: {argument}` under "
        f"config.{key}; if Primus adds it, write `backend: primus`."
    )


MEGATRON: Backend[MegatronFields] = Backend(
    name="megatron",
    unknown=KNB104,
    not_checked=KNB105,
    checked_against="its config dataclasses",
    install="pip install megatron-core",
    message=_unknown,
    fix=_fix,
)
