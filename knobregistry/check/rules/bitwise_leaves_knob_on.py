from __future__ import annotations

from knobregistry.check.diagnostics import Family, Rule
from knobregistry.check.examples import PROFILE, example, profiles

KNB101 = Rule(
    code="KNB101",
    name="BitwiseLeavesKnobOn",
    title="A bitwise profile leaves on a default-on kernel knob that is not triaged reproducible.",
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
    examples=example(
        PROFILE,
        invalid={"registry.yaml": profiles().replace('      PRIMUS_HC_TRITON: "0"\n', "")},
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
)
