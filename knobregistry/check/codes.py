"""Every code `knobs check` reports, in one table, as Ruff keeps one.

KNB0xx: the inventory (code versus registry); KNB1xx: profiles; KNB2xx: waivers,
the baseline and generated docs. A code never changes meaning. A retired or
reserved code stays in this table (``reserved=True``) so that it is never reused.

A rule is declared here once: its code, name, severity, summary, family, example, fix
and docs page. The families of checks take their rules from here (`rules_of`), and
SARIF, `knobs rule`, the docs' code tables and the tests read the same entries.
"""

from __future__ import annotations

from collections.abc import Mapping

from knobregistry.check.diagnostics import Example, Family, Files, Rule, Severity


def _files(files: Mapping[str, str]) -> Files:
    return tuple(sorted(files.items()))


def _example(
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
_REGISTRY = """\
version: 1
scan:
  paths: [pkg]
knobs:
  PRIMUS_HC_TRITON:
    default: "1"
    default_on: true
    triage: breaks-bitwise
"""
_MODEL = 'import os\n\nHC = os.environ.get("PRIMUS_HC_TRITON", "1") != "0"\n'
_INVENTORY = {"registry.yaml": _REGISTRY, "pkg/model.py": _MODEL}
_OTHER = _MODEL.replace("HC =", "FAST =")
_NEW_TRITON = 'import os\n\nNEW = os.environ.get("PRIMUS_NEW_TRITON", "1") != "0"\n'
_LOOP = (
    'import os\n\nfor kind in ("HC",):\n    os.environ.get(f"PRIMUS_{kind}_TRITON", "1") != "0"\n'
)
_FLAGS = (
    "import os\n\nfrom toolkit import str2bool\n\n"
    'ADAM = str2bool(os.environ.get("PRIMUS_FUSED_ADAM", "1"))\n'
)
_EXEMPT = "exempt\n    reason: Triaged by hand."


def _entry(name: str, triage: str = "untriaged") -> str:
    """A registry entry for a knob on by default ("1")."""
    return f'  {name}:\n    default: "1"\n    default_on: true\n    triage: {triage}\n'


def _registry(*names: str) -> str:
    """The inventory's registry, with an untriaged knob on by default for each name."""
    return _REGISTRY + "".join(_entry(name) for name in names)


# The profiles' examples: the inventory's project with a bitwise profile that keeps its promise.
def _profiles(*, knobs: str = "", external: str = "", config: str = "", env: str = "") -> str:
    """The registry with more knobs, external variables, config keys and bitwise settings."""
    return (
        _REGISTRY
        + knobs
        + "external:\n  PYTHONHASHSEED:\n    description: Python's hash seed.\n"
        + external
        + (f"config:\n{config}" if config else "")
        + "profiles:\n  bitwise:\n    description: Bit for bit.\n    kind: bitwise\n"
        + '    env:\n      PRIMUS_HC_TRITON: "0"\n      PYTHONHASHSEED: "0"\n'
        + env
    )


_PROFILE = {"registry.yaml": _profiles(), "pkg/model.py": _MODEL}
_DATACLASS = "from dataclasses import dataclass, field\n\n\n@dataclass\nclass "
# Stand-ins for megatron-core and torchtitan, found first on PYTHONPATH.
_MEGATRON = {
    "megatron/__init__.py": "",
    "megatron/core/__init__.py": "",
    "megatron/core/model_parallel_config.py": (
        _DATACLASS + "ModelParallelConfig:\n    deterministic_mode: bool = False\n"
    ),
}
_TORCHTITAN = {
    "torchtitan/__init__.py": "",
    "torchtitan/config/__init__.py": "",
    "torchtitan/config/job_config.py": (
        _DATACLASS + "Debug:\n    seed: int | None = None\n\n\n"
        "@dataclass\nclass JobConfig:\n    debug: Debug = field(default_factory=Debug)\n"
    ),
}


def _megatron_key(name: str) -> str:
    return f"  {name}:\n    backend: megatron\n    description: Deterministic kernels.\n"


def _titan_key(name: str) -> str:
    return f"  {name}:\n    backend: torchtitan\n    description: TorchTitan's seed.\n"


_LAUNCHER = '[ "$PRIMUS_DETERMINISTIC" = 1 ] && export NCCL_ALGO=Ring\n'
_NCCL_ALGO = "  NCCL_ALGO:\n    description: Collective algorithm.\n"
_IMPLIED = _NCCL_ALGO + '    implied_by: {PRIMUS_DETERMINISTIC: "1"}\n'


def _deterministic(algo: str) -> str:
    """A profile that sets the launcher's switch, and NCCL_ALGO to ``algo``."""
    switch = "  PRIMUS_DETERMINISTIC:\n    default_on: false\n    triage: untriaged\n"
    env = f'      PRIMUS_DETERMINISTIC: "1"\n      NCCL_ALGO: {algo}\n'
    return _profiles(knobs=switch, external=_NCCL_ALGO, env=env)


_REQUIRES = (
    "import os\n\n\ndef validate(args):\n    if {}:\n"
    '        assert os.environ.get("TORCH_COMPILE_DISABLE") == "1"\n'
)


def _required(env: str) -> str:
    """A profile in deterministic mode (a Primus key), with ``env`` added."""
    external = "  TORCH_COMPILE_DISABLE:\n    description: Turns torch.compile off.\n"
    config = "  deterministic_mode:\n    backend: primus\n    description: Deterministic mode.\n"
    profile = _profiles(external=external, config=config, env=env)
    return profile + "    config:\n      deterministic_mode: true\n"


_TOYS = (
    'import os\n\nA = os.environ.get("TOY_A", "1") != "0"\n'
    'B = os.environ.get("TOY_B", "1") != "0"\n'
)
_REPRODUCIBLE_TOYS = _entry("TOY_A", "reproducible") + _entry("TOY_B", "reproducible")
_FUSED = 'import os\n\nFUSED = os.environ.get("DEMO_FUSED", "1") != "0"\n'
_TUNER = (
    "  NCCL_TUNER_PLUGIN:\n    description: An external tuner.\n    role: stack\n"
    "    must_stay_unset: true\n"
)
_STACK_RULE = "    select:\n      - role: stack\n        set: deterministic\n"

# The waivers' and the baseline's examples: the inventory's project, checked on a given day.
_TODAY = ("--today", "2026-07-01")


def _waiver(expires: str, *, owner: bool) -> str:
    """The inventory's registry, its knob waived until ``expires``, with an owner or none."""
    waived = f"exempt\n    reason: The Triton path is being rewritten.\n    expires: {expires}"
    return _REGISTRY.replace("breaks-bitwise", waived + ("\n    owner: hc-team" if owner else ""))


def _baseline(finding: str) -> str:
    return '{\n  "version": 1,\n  "findings": [' + finding + "]\n}\n"


_GONE = (
    '\n    {"code": "KNB001", "knob": "PRIMUS_NEW_TRITON", "path": "pkg/new.py", "count": 1}\n  '
)


# The stale triage's example: a kernel triaged reproducible, kept on by a bitwise profile, and
# the code its record was measured on (the digests of scanner.gated).
_HC = (
    "import os\n\nimport triton\n\n\n@triton.jit\ndef _hc_fwd_kernel(x):\n    return x * 2\n"
    '\n\ndef hc_forward(x):\n    if os.environ.get("PRIMUS_HC_TRITON", "1") != "0":\n'
    "        return _hc_fwd_kernel[(1,)](x)\n    return x * 2\n"
)
_TRIAGED = """\
version: 1
scan:
  paths: [pkg]
knobs:
  PRIMUS_HC_TRITON:
    default: "1"
    default_on: true
    role: kernel
    triage: reproducible
    evidence:
      records:
        - date: 2026-05-01
          verdict: reproducible
          sweep: alone
          profile: bitwise
          command: [python, train.py]
          code:
            pkg/hc.py:
              _hc_fwd_kernel: 579a0f53e5fc2d83
              hc_forward: 4d30a7d1f7c88515
external:
  PYTHONHASHSEED:
    description: Python's hash seed.
profiles:
  bitwise:
    description: Bit for bit.
    kind: bitwise
    env:
      PYTHONHASHSEED: "0"
"""
_STALE = {"registry.yaml": _TRIAGED, "pkg/hc.py": _HC}

# The generated docs' examples: a page whose block of knobs the registry renders.
_DOC = """\
<!-- knobs:registry registry.yaml -->

<!-- knobs:begin knobs -->

| knob | gates | default | triage | cost when off |
| --- | --- | --- | --- | --- |
| `PRIMUS_HC_TRITON` | — | `"1"` (on) | **breaks-bitwise** | — |

<!-- knobs:end knobs -->
"""

RULES: tuple[Rule, ...] = (
    Rule(
        code="KNB001",
        name="UnregisteredKnob",
        title="A knob the code reads is not registered.",
        description=(
            "The scan found a knob that the registry's policy requires to be registered "
            "(every knob under policy `all`; under policy `default-on`, knobs whose feature "
            "is on by default: on by default, or a `disable` knob off by default), and "
            "neither `knobs` nor `external` in the registry names it. Reported at the knob's "
            "first site."
        ),
        example=(
            "# pkg/model.py (PRIMUS_NEW_TRITON is in neither `knobs` nor `external`)\n"
            'NEW = os.environ.get("PRIMUS_NEW_TRITON", "1") != "0"'
        ),
        examples=_example(
            _INVENTORY,
            invalid={"pkg/new.py": _NEW_TRITON},
            valid={"pkg/new.py": _NEW_TRITON, "registry.yaml": _registry("PRIMUS_NEW_TRITON")},
        ),
        page="checks.md",
        family=Family.INVENTORY,
        help=(
            "Add the YAML entry that the fix shows under `knobs:` in the registry (it is "
            "prefilled from the scan and starts `untriaged`), then fill in what it gates "
            "and triage it."
        ),
    ),
    Rule(
        code="KNB002",
        name="StaleKnob",
        title="A registered knob is read by no code in the scan scope.",
        description=(
            "The registry lists a knob under `knobs`, but no file in the scan scope reads "
            "it any more, or the scope's `match` patterns do not select it. Reported at the "
            "knob's entry in the registry. Not checked when paths are given on the command "
            "line, since the rest of the scope was not scanned."
        ),
        example=(
            "# registry.yaml lists PRIMUS_ROPE_TRITON under `knobs`; no code in scan.paths\n"
            "# reads it any more"
        ),
        examples=_example(
            _INVENTORY,
            invalid={"registry.yaml": _registry("PRIMUS_ROPE_TRITON")},
            valid={},
        ),
        page="checks.md",
        family=Family.INVENTORY,
        help=(
            "Remove the entry if the gate is gone; widen `scan.paths` if the code moved; "
            "move it under `external` if only a library reads it."
        ),
    ),
    Rule(
        code="KNB003",
        name="DefaultDrift",
        title="The code's default differs from the registry's.",
        description=(
            "A site falls back to a different value than the registered `default`, or its "
            "gate is on (or off) by default where the registered `default_on` says "
            "otherwise, or a site reads a knob otherwise than its entry's `sites` records. "
            "The knob's triage was made for the registered default, so a change "
            "needs a look. Reported at the site, naming the registry's line. Not reported "
            "for a knob with conflicting sites (KNB004): fix that first."
        ),
        example=(
            '# registry.yaml: PRIMUS_HC_TRITON: {default: "1", default_on: true}\n'
            'HC = os.environ.get("PRIMUS_HC_TRITON", "0") != "0"'
        ),
        examples=_example(
            _INVENTORY,
            invalid={"pkg/model.py": _MODEL.replace('"1")', '"0")')},
            valid={},
        ),
        page="checks.md",
        family=Family.INVENTORY,
        help=(
            "If the change is intended, update `default` / `default_on` in the registry as "
            "the fix shows and review the triage; otherwise restore the default in the code."
        ),
    ),
    Rule(
        code="KNB004",
        name="ConflictingSites",
        title="A knob is read with conflicting defaults.",
        description=(
            "Sites of one knob disagree: one is on by default and another off, they fall "
            "back to different values, or no single value turns every site off. No profile "
            "can then switch the knob off everywhere with one value. Reported for knobs that "
            "are registered or that the policy requires, at the first site that disagrees "
            "with the registry (or the first site); never for a launch fact."
        ),
        example=(
            'HC = os.environ.get("PRIMUS_HC_TRITON", "1") != "0"       # pkg/model.py\n'
            'FAST = os.environ.get("PRIMUS_HC_TRITON", "0") == "1"    # pkg/other.py'
        ),
        examples=_example(
            _INVENTORY,
            invalid={"pkg/other.py": _OTHER.replace('"1") != "0"', '"0") == "1"')},
            valid={"pkg/other.py": _OTHER},
        ),
        page="checks.md",
        family=Family.INVENTORY,
        help=(
            "Make every site read the variable the same way: one helper function, or one "
            "module constant for the default. In code you do not own, record how each site "
            "reads it under the entry's `sites` (the fix shows them; `knobs init` writes them)."
        ),
    ),
    Rule(
        code="KNB005",
        name="ExemptWithoutReason",
        title="An exempt knob has no reason (a registry error).",
        description=(
            "A knob with `triage: exempt` must say why in `reason`. The registry's schema "
            "requires it, so the registry fails to load (exit 2) with the file, line and "
            "key; `knobs check` never reports this code itself. It is reserved so that it "
            "keeps this meaning."
        ),
        example=("PRIMUS_BLOCK:\n  triage: exempt    # and no `reason:`"),
        examples=_example(
            _INVENTORY,
            invalid={"registry.yaml": _REGISTRY.replace("breaks-bitwise", "exempt")},
            valid={"registry.yaml": _REGISTRY.replace("breaks-bitwise", _EXEMPT)},
        ),
        page="checks.md",
        family=Family.INVENTORY,
        help="Add `reason:` to the entry, or triage the knob.",
        reserved=True,
    ),
    Rule(
        code="KNB006",
        name="DynamicRead",
        title="An environment read whose variable name cannot be resolved.",
        description=(
            "Under policy `all`, a read in the scope whose name the scanner cannot resolve "
            "(an f-string over data it cannot know, a parameter no call gives a literal) "
            "might be an unregistered knob; the message says why it cannot be resolved. It "
            "is a warning: it does not fail the check, because such a read can be neither "
            "registered nor proved harmless."
        ),
        example=('for kind in open("kinds"):\n    os.environ.get(f"PRIMUS_{kind}")'),
        examples=_example(
            _INVENTORY,
            invalid={"pkg/loop.py": _LOOP.replace('("HC",)', 'open("kinds")')},
            valid={"pkg/loop.py": _LOOP},
        ),
        page="checks.md",
        family=Family.INVENTORY,
        help=(
            "Name the variable with a string literal or a module-level constant (or pass "
            "it to a wrapper function as a literal), so that the knob can be registered."
        ),
        severity=Severity.WARNING,
    ),
    Rule(
        code="KNB007",
        name="UnscannableFile",
        title="A file in the scope could not be scanned.",
        description=(
            "A file in the scope could not be read or parsed (a syntax error, not UTF-8, "
            "too large). Its knobs are unknown, so the check cannot vouch for it and fails."
        ),
        example=('# pkg/broken.py\nx = os.environ.get("PRIMUS_X"'),
        examples=_example(
            _INVENTORY,
            invalid={"pkg/broken.py": 'import os\nx = os.environ.get("PRIMUS_X"\n'},
            valid={"pkg/broken.py": "import os\nx = 1\n"},
        ),
        page="checks.md",
        family=Family.INVENTORY,
        help=(
            "If the file is yours, fix it; if it is code you do not edit (a vendored or "
            "installed library), add its path to `scan.exclude` in the registry."
        ),
    ),
    Rule(
        code="KNB008",
        name="UndecidedGate",
        title="A knob whose gate the scanner could not decide is not decided in the registry.",
        description=(
            "The scanner could not tell what the code does with a knob's value (it goes "
            "through a function it does not follow, for example), so nothing says whether "
            "the knob is on by default. It is never taken as off or as a value: under either "
            "policy it must be registered, after a person has read the code. `knobs init` "
            "registers such a knob with `default_on: null` and the scanner's reason under "
            "`undecided`, which no profile acts on; the finding stays until a person has "
            "decided. Reported at its first undecided site, with the reason."
        ),
        example=(
            "from toolkit import str2bool\n"
            "\n"
            'ADAM = str2bool(os.environ.get("PRIMUS_FUSED_ADAM", "1"))'
        ),
        examples=_example(
            _INVENTORY,
            invalid={"pkg/flags.py": _FLAGS},
            valid={"pkg/flags.py": _FLAGS, "registry.yaml": _registry("PRIMUS_FUSED_ADAM")},
        ),
        page="checks.md",
        family=Family.INVENTORY,
        help=(
            "Read the code around the site (`knobs explain KNOB`), then register the knob "
            "under `knobs:` with `default_on` as you found it and its triage (and remove "
            "`undecided` where `knobs init` wrote it)."
        ),
    ),
    Rule(
        code="KNB009",
        name="StaleTriage",
        title="A knob triaged reproducible gates code that changed after its triage.",
        description=(
            "`knobs triage --record` keeps, in each record, the code the knob gates: a "
            "digest of each function its sites sit in, of those that hold the branches its "
            "value decides, and of every function and method those branches reach in the "
            "tree (the Triton kernels among them), which comments, formatting and docstrings "
            "do not change. A knob triaged `reproducible` (or kept on by a profile's verified "
            "run) whose latest record no longer matches the code was measured on other code: "
            "its verdict is stale. An error when a `bitwise` profile keeps the knob on (a "
            "waiver, `expires`, makes it a warning until then), else a warning. Reported at "
            "the first function that changed, naming each. Notes, which do not fail the "
            "check: records that keep no code (written before knobs kept it), once for all "
            "of them; and a package of the stack (torch, triton, megatron-core, ...) "
            "installed where knobs runs at another release than the record names."
        ),
        example=(
            "# registry.yaml: PRIMUS_HC_TRITON triaged reproducible, its record measured on\n"
            "#   pkg/hc.py: {_hc_fwd_kernel: 579a0f53e5fc2d83, hc_forward: 4d30a7d1f7c88515}\n"
            "@triton.jit\n"
            "def _hc_fwd_kernel(x):\n"
            "    return x * 3    # was x * 2"
        ),
        examples=_example(
            _STALE,
            invalid={"pkg/hc.py": _HC.replace("return x * 2\n\n", "return x * 3\n\n")},
            valid={"pkg/hc.py": _HC.replace("    return x * 2\n", "    return x*2  # doubled\n")},
        ),
        page="checks.md",
        family=Family.TRIAGE,
        help=(
            "Triage the knob again on the code as it is now (the fix prints the command, from "
            "its latest record); the new record keeps the new code. If the change cannot "
            "affect the result, a waiver (`expires`, `owner`) lets it through until a date."
        ),
    ),
    Rule(
        code="KNB101",
        name="BitwiseLeavesKnobOn",
        title="A bitwise profile leaves on a default-on kernel knob that is not triaged "
        "reproducible.",
        description=(
            "A profile of kind `bitwise` promises a bitwise-reproducible run, yet leaves on a "
            "kernel choice that is on by default (a knob on by default, or a `disable` knob "
            "off by default) and not triaged `reproducible`, or a knob triaged "
            "`breaks-bitwise`: the hole a newly added fusion opens. Knobs of other roles "
            "(what is trained, checks, launch steps) are the run's, not the recipe's. "
            "Reported at the profile in the registry."
        ),
        example=(
            "profiles:\n"
            "  bitwise:\n"
            "    kind: bitwise\n"
            "    env: {}    # PRIMUS_HC_TRITON (on by default, breaks-bitwise) left on"
        ),
        examples=_example(
            _PROFILE,
            invalid={"registry.yaml": _profiles().replace('      PRIMUS_HC_TRITON: "0"\n', "")},
            valid={},
        ),
        page="profiles.md",
        family=Family.PROFILES,
        help=(
            "Set the knob to the value that turns its feature off in the profile (a `disable` "
            "knob's on value), or add a select rule that covers it (role: kernel, "
            "default_on: true, triage_not: reproducible, set: off); or triage it; or, if it "
            "is no kernel choice, register its role."
        ),
    ),
    Rule(
        code="KNB102",
        name="ProfileSetsUnknownVariable",
        title=(
            "A profile sets a variable that no scanned code reads and no `external` entry declares."
        ),
        description=(
            "A profile sets an environment variable that no code in the scan reads and no "
            "`external` entry declares: a typo, or a knob that was removed. Reported at the "
            "profile's value."
        ),
        example=(
            "profiles:\n"
            "  bitwise:\n"
            "    env:\n"
            '      PRIMUS_HC_TRITN: "0"    # a typo: no code reads it'
        ),
        examples=_example(
            _PROFILE,
            invalid={"registry.yaml": _profiles(env='      PRIMUS_HC_TRITN: "0"\n')},
            valid={},
        ),
        page="profiles.md",
        family=Family.PROFILES,
        help=(
            "Fix the name, or declare the variable under `external` with the library that reads it."
        ),
    ),
    Rule(
        code="KNB103",
        name="ProfileValueMissesGate",
        title="A profile value does not put the scanned gate in the state it is meant to.",
        description=(
            "The value a profile gives a knob is not one the scanned gate treats as the intended "
            'state, for example "false" on a gate that only tests `!= "0"`, which turns nothing '
            "off."
        ),
        example=(
            '# the gate: os.environ.get("PRIMUS_HC_TRITON", "1") != "0"\n'
            "profiles:\n"
            "  bitwise:\n"
            "    env:\n"
            '      PRIMUS_HC_TRITON: "false"    # turns nothing off'
        ),
        examples=_example(
            _PROFILE,
            invalid={"registry.yaml": _profiles().replace('TRITON: "0"', 'TRITON: "false"')},
            valid={},
        ),
        page="profiles.md",
        family=Family.PROFILES,
        help=(
            "Write a value the gate treats as intended (the message lists them), or give the knob "
            "its `off_value` / `on_value` in the registry."
        ),
    ),
    Rule(
        code="KNB104",
        name="UnknownMegatronConfigKey",
        title=(
            "A config key declared `backend: megatron` is no field of megatron-core's config "
            "classes."
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
        examples=_example(
            {**_PROFILE, **_MEGATRON},
            invalid={"registry.yaml": _profiles(config=_megatron_key("deterministic_mod"))},
            valid={"registry.yaml": _profiles(config=_megatron_key("deterministic_mode"))},
        ),
        page="profiles.md",
        family=Family.PROFILES,
        help=(
            "Fix the name; mark a Megatron command-line argument with `argument: --name`; or "
            "declare the key's real backend (primus, for keys Primus adds)."
        ),
    ),
    Rule(
        code="KNB105",
        name="MegatronKeysNotChecked",
        title="megatron-core is not installed, so the megatron config keys were not checked.",
        description=(
            "megatron-core could not be imported, so the config keys declared `backend: megatron`"
            " were not checked against its dataclasses. A note: it does not fail the check."
        ),
        example=(
            "config:\n"
            "  deterministic_mode:\n"
            "    backend: megatron    # megatron-core is not installed"
        ),
        examples=_example(
            {**_PROFILE, "registry.yaml": _profiles(config=_megatron_key("deterministic_mode"))},
            invalid={"megatron/__init__.py": ""},
            valid=_MEGATRON,
        ),
        page="profiles.md",
        family=Family.PROFILES,
        help=(
            "Install megatron-core in the environment that runs `knobs check` (pip install "
            "megatron-core) to check them."
        ),
        severity=Severity.NOTE,
    ),
    Rule(
        code="KNB106",
        name="ProfileContradictsLauncher",
        title="A profile sets a variable to one value while the switch it also sets makes the "
        "launcher set it to another.",
        description=(
            "A launcher script (a shell script or a hook that prints `env.NAME=VALUE`) writes a "
            "variable under a condition on another one: `PRIMUS_DETERMINISTIC=1` implies "
            "`NCCL_ALGO=Ring`. A profile that sets the switch and gives the implied variable a "
            "different value contradicts the launcher: which value the run gets depends on which "
            "is applied last. Reported at the profile's value, naming the launcher's line."
        ),
        example=(
            '# launcher: [ "$PRIMUS_DETERMINISTIC" = 1 ] && export NCCL_ALGO=Ring\n'
            "profiles:\n"
            "  bitwise:\n"
            "    env:\n"
            '      PRIMUS_DETERMINISTIC: "1"\n'
            "      NCCL_ALGO: Tree"
        ),
        examples=_example(
            {**_PROFILE, "pkg/launch.sh": _LAUNCHER},
            invalid={"registry.yaml": _deterministic("Tree")},
            valid={"registry.yaml": _deterministic("Ring")},
        ),
        page="profiles.md",
        family=Family.PROFILES,
        help=(
            "Give the variable the launcher's value in the profile (or leave it to the launcher), "
            "or stop setting the switch that implies it."
        ),
    ),
    Rule(
        code="KNB107",
        name="UnknownTorchTitanConfigKey",
        title="A config key declared `backend: torchtitan` is no field of torchtitan's job config.",
        description=(
            "A trainer-config key declared `backend: torchtitan` is not a path of fields through "
            "torchtitan's job-config dataclasses (checked when torchtitan is installed): the "
            "overlay would set a key TorchTitan rejects."
        ),
        example=(
            "config:\n"
            "  debug.sead:    # no field path of torchtitan's job config\n"
            "    backend: torchtitan"
        ),
        examples=_example(
            {**_PROFILE, **_TORCHTITAN},
            invalid={"registry.yaml": _profiles(config=_titan_key("debug.sead"))},
            valid={"registry.yaml": _profiles(config=_titan_key("debug.seed"))},
        ),
        page="profiles.md",
        family=Family.PROFILES,
        help=(
            "Fix the name (a dotted path such as debug.seed); if Primus adds the key, declare "
            "`backend: primus`."
        ),
    ),
    Rule(
        code="KNB108",
        name="TorchTitanKeysNotChecked",
        title="torchtitan is not installed, so the torchtitan config keys were not checked.",
        description=(
            "torchtitan could not be imported, so the config keys declared `backend: torchtitan` "
            "were not checked against its job config. A note: it does not fail the check."
        ),
        example=(
            "config:\n  debug.seed:\n    backend: torchtitan    # torchtitan is not installed"
        ),
        examples=_example(
            {**_PROFILE, "registry.yaml": _profiles(config=_titan_key("debug.seed"))},
            invalid={"torchtitan/__init__.py": ""},
            valid=_TORCHTITAN,
        ),
        page="profiles.md",
        family=Family.PROFILES,
        help=(
            "Install torchtitan in the environment that runs `knobs check` (pip install "
            "torchtitan, on Python 3.11 or newer) to check them."
        ),
        severity=Severity.NOTE,
    ),
    Rule(
        code="KNB109",
        name="BitwiseMissesRequirement",
        title="A bitwise profile does not give a variable the value that code requires.",
        description=(
            "Code of the scan refuses to run unless a variable holds given values (`assert "
            "os.environ.get(env) == value`, as Primus's `validate_args_on_rocm` does for "
            "TORCH_COMPILE_DISABLE and three more in deterministic mode). A profile of kind "
            "`bitwise` that leaves the variable unset while its config turns that condition "
            "on, or sets a value the code refuses, starts a run that stops there. A "
            "requirement with no condition is the run's own set-up, left to its environment. "
            "Reported at the profile."
        ),
        example=(
            "if args.deterministic_mode:    # code of the scan\n"
            '    assert os.environ.get("TORCH_COMPILE_DISABLE") == "1"\n'
            "# a bitwise profile sets deterministic_mode: true, leaves TORCH_COMPILE_DISABLE unset"
        ),
        examples=_example(
            {**_PROFILE, "pkg/validate.py": _REQUIRES.format("args.deterministic_mode")},
            invalid={"registry.yaml": _required("")},
            valid={"registry.yaml": _required('      TORCH_COMPILE_DISABLE: "1"\n')},
        ),
        page="profiles.md",
        family=Family.PROFILES,
        help="Set the variable to the required value under the profile's `env`.",
    ),
    Rule(
        code="KNB110",
        name="RequirementConditionUndecided",
        title="Code requires a value only under a condition the check cannot evaluate for a "
        "bitwise profile.",
        description=(
            "A requirement holds only under a test of the trainer's arguments "
            '(`if args.fp8_recipe == "mxfp8":`) that the profile\'s config does not decide. '
            "A note for a person: if the profile's runs meet the condition, they stop there "
            "unless the variable holds the required value."
        ),
        example=(
            'if args.fp8_recipe == "mxfp8":\n'
            '    assert os.environ.get("NVTE_FP8_BLOCK") == "1"\n'
            "# the bitwise profile does not set fp8_recipe"
        ),
        examples=_example(
            {**_PROFILE, "pkg/validate.py": _REQUIRES.format('args.fp8_recipe == "mxfp8"')},
            invalid={"registry.yaml": _required("")},
            valid={"registry.yaml": _required('      TORCH_COMPILE_DISABLE: "1"\n')},
        ),
        page="profiles.md",
        family=Family.PROFILES,
        help="Set the variable as required, or set the config key that decides the condition.",
        severity=Severity.NOTE,
    ),
    Rule(
        code="KNB111",
        name="ImplicationGone",
        title="The registry says a launcher sets a variable under a condition, and no scanned "
        "launcher script does.",
        description=(
            "An `external` entry's `implied_by` records that a launcher script sets the variable "
            "when others hold given values (`NCCL_ALGO` when `PRIMUS_DETERMINISTIC=1`). When no "
            "write of the scan does so any more (the hook changed, or moved out of the scope), "
            "profiles that relied on the launcher no longer get the value. Reported at "
            "`implied_by`; skipped when paths on the command line narrow the scan."
        ),
        example=(
            "external:\n"
            "  NCCL_ALGO:\n"
            '    implied_by: {PRIMUS_DETERMINISTIC: "1"}\n'
            "# no scanned launcher script sets NCCL_ALGO any more"
        ),
        examples=_example(
            _PROFILE,
            invalid={"registry.yaml": _profiles(external=_IMPLIED)},
            valid={"registry.yaml": _profiles(external=_IMPLIED.split("    implied_by")[0])},
        ),
        page="profiles.md",
        family=Family.PROFILES,
        help=(
            "Restate the value in the profiles that need it and drop `implied_by`, or put the "
            "launcher script back in the scan's scope."
        ),
    ),
    Rule(
        code="KNB112",
        name="BitwiseNotRunTogether",
        title="A bitwise profile leaves on knobs judged reproducible one at a time, and no "
        "recorded run had it as a whole.",
        description=(
            "Two knobs that are each reproducible alone can break reproducibility together (two "
            "reductions that each keep a fixed order alone, and race when both are on). A "
            "profile of kind `bitwise` that leaves on two or more knobs triaged `reproducible` "
            "is assembled from single-knob verdicts unless the registry records a run of it as "
            "a whole: its own `verified` run (written by `knobs triage --search fastest-bitwise "
            "--record`), or an evidence record of a triage started from it (`profile:` names "
            "it; such a triage runs the profile itself as its baseline). A warning: it does "
            "not fail the check."
        ),
        example=(
            "profiles:\n"
            "  bitwise:\n"
            "    kind: bitwise\n"
            '    select: [{default_on: true, triage_not: reproducible, set: "off"}]\n'
            "# TOY_A and TOY_B are triaged reproducible, each alone; no run had both on"
        ),
        examples=_example(
            {**_PROFILE, "pkg/toy.py": _TOYS},
            invalid={"registry.yaml": _profiles(knobs=_REPRODUCIBLE_TOYS)},
            valid={"registry.yaml": _profiles(knobs=_REPRODUCIBLE_TOYS, env='      TOY_B: "0"\n')},
        ),
        page="profiles.md",
        family=Family.PROFILES,
        help=(
            "Run `knobs triage --profile NAME --record -- COMMAND` (its baseline runs the profile "
            "as a whole), or `--search fastest-bitwise --record` to find and verify the fastest "
            "combination."
        ),
        severity=Severity.WARNING,
    ),
    Rule(
        code="KNB113",
        name="BitwiseLacksStackSetting",
        title="A bitwise profile does not set a catalogued determinism setting of a library the "
        "project uses.",
        description=(
            "The shipped catalogue (`knobs catalogue`) holds the stack's determinism settings: "
            "NCCL_ALGO=Ring, CUBLAS_WORKSPACE_CONFIG, ROCBLAS_DEFAULT_ATOMICS_MODE=0, "
            "torch.use_deterministic_algorithms(True) and more, each with its source. A profile "
            "of kind `bitwise` that does not give one of them its deterministic value, for a "
            "library the project uses (named in its requirements*.txt or pyproject.toml, or "
            "imported by the scanned code) on its platform, leaves that library free to choose "
            "a non-deterministic path. The platform is the one the registry's own stack "
            "settings belong to (an RCCL entry: rocm); with none, only the settings of every "
            "platform are asked for. A note: it does not fail the check."
        ),
        example=(
            "# requirements.txt names torch; the registry has NCCL_ALGO (RCCL, role stack)\n"
            "profiles:\n"
            "  bitwise:\n"
            "    kind: bitwise\n"
            "    select: [{role: stack, set: deterministic}]\n"
            "# no ROCBLAS_DEFAULT_ATOMICS_MODE, no torch.use_deterministic_algorithms"
        ),
        examples=_example(
            {**_PROFILE, "requirements.txt": "triton\n"},
            invalid={"registry.yaml": _profiles().replace('      PYTHONHASHSEED: "0"\n', "")},
            valid={},
        ),
        page="profiles.md",
        family=Family.PROFILES,
        help=(
            "Register the setting as `knobs catalogue LIBRARY` gives it (a variable under "
            "`external:` with `role: stack`, a call under `config:` with `backend: stack`) and "
            "let the profile set it, or run `knobs init` in a scratch folder and copy its entries."
        ),
        severity=Severity.NOTE,
    ),
    Rule(
        code="KNB114",
        name="LauncherOverridesBitwise",
        title="A launcher script sets a registered knob to a value that a bitwise profile "
        "contradicts.",
        description=(
            "A launcher write (`export X=1`, `X=1 cmd`, `env X=1`, `docker run -e X=1`, "
            "`srun --export=X=1`, a hook's printed `env.X=1`) sets a registered knob to a "
            "value that every gate of the code reads as on while a profile of kind `bitwise` "
            "sets it off (or the other way round). A run started through that launcher gets "
            "the launcher's value, not the profile's. A value the launcher computes when it "
            "runs (`$(nproc)`, `${BASE}/x`) is never judged: it is not known. A write under "
            "conditions the profile sets all of is KNB106's. A note: whether the profile's "
            "runs go through that launcher is for a person to say."
        ),
        example=(
            "export DEMO_FUSED=1            # launch/run.sh\n"
            "profiles:\n"
            "  bitwise:\n"
            "    kind: bitwise\n"
            '    env: {DEMO_FUSED: "0"}'
        ),
        examples=_example(
            {
                **_PROFILE,
                "registry.yaml": _profiles(
                    knobs=_entry("DEMO_FUSED"), env='      DEMO_FUSED: "0"\n'
                ),
                "pkg/fused.py": _FUSED,
            },
            invalid={"pkg/run.sh": "export DEMO_FUSED=1\n"},
            valid={"pkg/run.sh": "export DEMO_FUSED=${DEMO_FUSED:-1}\n"},
        ),
        page="profiles.md",
        family=Family.PROFILES,
        help=(
            "Make the launcher keep a value already set (`export X=${X:-1}`), or remove the "
            "write, or do not start the profile's runs through that launcher."
        ),
        severity=Severity.NOTE,
    ),
    Rule(
        code="KNB115",
        name="LauncherSetsUnsetStackSetting",
        title="A launcher script sets a stack setting that a bitwise profile unsets because it "
        "must stay unset.",
        description=(
            "The catalogue (`knobs catalogue`) marks some library settings as ones a "
            "deterministic run must leave unset: a tile or split override of a kernel "
            "(HK_BWD_DQ_KVB), an external tuner (NCCL_TUNER_PLUGIN), an override of the "
            "framework's own precision (TORCH_ALLOW_TF32_CUBLAS_OVERRIDE). A profile of kind "
            "`bitwise` unsets them (`role: stack`, `set: deterministic`), and `knobs export` "
            "writes `unset NAME`; a launcher write that sets one again (`export X=...`, "
            "`X=... cmd`, a hook's printed `env.X=...`) undoes that for every run started "
            "through it. A write under a condition the profile's values rule out is not "
            "reported. A note: whether the profile's runs go through that launcher is for a "
            "person to say."
        ),
        example=(
            "export NCCL_TUNER_PLUGIN=libnccl-tuner.so      # launch/run.sh\n"
            "external:\n"
            "  NCCL_TUNER_PLUGIN: {role: stack, must_stay_unset: true, ...}\n"
            "profiles:\n"
            "  bitwise:\n"
            "    kind: bitwise\n"
            "    select: [{role: stack, set: deterministic}]"
        ),
        examples=_example(
            {
                **_PROFILE,
                "registry.yaml": _profiles(external=_TUNER) + _STACK_RULE,
            },
            invalid={"pkg/run.sh": "export NCCL_TUNER_PLUGIN=libnccl-tuner.so\n"},
            valid={"pkg/run.sh": "unset NCCL_TUNER_PLUGIN\n"},
        ),
        page="profiles.md",
        family=Family.PROFILES,
        help=(
            "Remove the write, or keep it out of the runs that must reproduce; `knobs catalogue "
            "LIBRARY` says why the setting must stay unset."
        ),
        severity=Severity.NOTE,
    ),
    Rule(
        code="KNB201",
        name="ExpiredWaiver",
        title="A waiver's expiry date has passed.",
        description=(
            "A registry entry with an `expires` date is a waiver: the knob is let through "
            "(usually `triage: exempt`) until that day. After it, `knobs check` fails on the "
            "entry until the knob is triaged or the waiver renewed. Reported at the `expires` "
            "key in the registry."
        ),
        example=(
            "PRIMUS_FP8:\n"
            "  triage: exempt\n"
            "  reason: The FP8 path is being rewritten.\n"
            "  owner: fp8-team\n"
            "  expires: 2026-06-30    # and today is later"
        ),
        examples=_example(
            _INVENTORY,
            invalid={"registry.yaml": _waiver("2026-06-30", owner=True)},
            valid={"registry.yaml": _waiver("2026-12-31", owner=True)},
            arguments=_TODAY,
        ),
        page="waivers.md",
        family=Family.WAIVERS,
        help=(
            "Triage the knob and remove `expires`; or, if its owner agrees, move `expires` to a "
            "later date."
        ),
    ),
    Rule(
        code="KNB202",
        name="WaiverWithoutOwner",
        title="A waiver names no owner.",
        description=(
            "An entry with an `expires` date names no `owner`, so nobody is asked to triage the "
            "knob when the waiver runs out. A warning: it does not fail the check."
        ),
        example=(
            "PRIMUS_FP8:\n"
            "  triage: exempt\n"
            "  reason: The FP8 path is being rewritten.\n"
            "  expires: 2026-06-30    # and no `owner:`"
        ),
        examples=_example(
            _INVENTORY,
            invalid={"registry.yaml": _waiver("2026-12-31", owner=False)},
            valid={"registry.yaml": _waiver("2026-12-31", owner=True)},
            arguments=_TODAY,
        ),
        page="waivers.md",
        family=Family.WAIVERS,
        help="Add `owner:` (a person, a team or a handle) to the entry.",
        severity=Severity.WARNING,
    ),
    Rule(
        code="KNB203",
        name="BaselineEntryGone",
        title="The baseline lists a finding that is gone.",
        description=(
            "`knobs check --baseline FILE` hides the findings listed in FILE. A listed finding "
            "that the check no longer reports has been paid off, and the baseline must shrink, "
            "or it would hide the same finding if it came back. Not checked when paths on the "
            "command line narrow the scan."
        ),
        example=(
            "# knobs-baseline.json accepts KNB001 for PRIMUS_NEW_TRITON in pkg/model.py;\n"
            "# the knob has since been registered"
        ),
        examples=_example(
            _INVENTORY,
            invalid={"knobs-baseline.json": _baseline(_GONE)},
            valid={"knobs-baseline.json": _baseline("")},
            arguments=("--baseline", "knobs-baseline.json"),
        ),
        page="waivers.md",
        family=Family.BASELINE,
        help=(
            "Rewrite the baseline without it: knobs check --baseline FILE --write-baseline FILE "
            "(a baseline may always shrink)."
        ),
    ),
    Rule(
        code="KNB204",
        name="DocsOutOfDate",
        title="A generated block of a doc differs from what the registry renders.",
        description=(
            "A Markdown file holds blocks between `<!-- knobs:begin NAME -->` and "
            "`<!-- knobs:end NAME -->` comments that `knobs docs --write` renders from the "
            "registry (the knob table, external variables, a profile's recipe). The block was "
            "edited by hand, or the registry changed since it was written. Reported at the first "
            "line that differs."
        ),
        example=("<!-- knobs:begin knobs -->\n(a table edited by hand)\n<!-- knobs:end knobs -->"),
        examples=_example(
            _INVENTORY,
            invalid={"knobs.md": _DOC.replace("| `PRIMUS_HC_TRITON` |", "| `PRIMUS_HC` |")},
            valid={"knobs.md": _DOC},
        ),
        page="generated-docs.md",
        family=Family.DOCS,
        help="Regenerate the blocks with `knobs docs --write FILE`; edit the registry, not them.",
    ),
    Rule(
        code="KNB205",
        name="DocsMarkersInvalid",
        title="A doc's knobs markers cannot be read.",
        description=(
            "A `knobs:begin` comment without its `knobs:end` (or the reverse), a block name other "
            "than `knobs`, `external` or `profile:NAME`, a profile the registry does not "
            "define, or a fenced code block never closed over a marker (which it makes code). "
            "The block cannot be checked or regenerated."
        ),
        example=("<!-- knobs:begin knobs -->\n(no knobs:end after it)"),
        examples=_example(
            _INVENTORY,
            invalid={"knobs.md": _DOC.replace("<!-- knobs:end knobs -->", "")},
            valid={"knobs.md": _DOC},
        ),
        page="generated-docs.md",
        family=Family.DOCS,
        help="Fix the marker comments (the example shows them), then run `knobs docs --write`.",
    ),
)

_BY_CODE = {rule.code: rule for rule in RULES}


def rule(code: str) -> Rule:
    """The rule for ``code``; KeyError for an unknown code."""
    return _BY_CODE[code]


def find_rule(code_or_name: str) -> Rule | None:
    """The rule whose code or name is ``code_or_name`` (any case); None when there is none."""
    folded = code_or_name.strip().casefold()
    return next((r for r in RULES if folded in (r.code.casefold(), r.name.casefold())), None)


def rules(*codes: str) -> tuple[Rule, ...]:
    """The rules for ``codes``, in the order given."""
    return tuple(_BY_CODE[code] for code in codes)


def rules_of(family: Family) -> tuple[Rule, ...]:
    """The rules of ``family``, in the table's order."""
    return tuple(r for r in RULES if r.family is family)
