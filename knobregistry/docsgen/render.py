"""The content of each generated block, and the page `knobs docs` writes: pure functions.

Everything comes from the registry alone (a profile is resolved as `knobs export`
writes it), or, for a `codes:PREFIX` block, from the table of check codes, so the
output is the same whatever the code, byte for byte.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from knobregistry._text.printable import printable
from knobregistry.profiles import resolve_profile
from knobregistry.registry import KnobEntry, Pass, Registry, Triage
from scanner import Polarity

NONE = "—"

# The lines of a `codes:PREFIX` block (the table of `knobs check`'s codes with that prefix).
# The rules are knobregistry.check's, which imports docsgen: its table is handed in
# (knobregistry.check.rule_table.render_codes), so that docsgen never imports check.
CodeTable = Callable[[str], list[str]]
_PASSES = {Pass.FORWARD: "forward", Pass.BACKWARD: "backward", Pass.BOTH: "forward and backward"}


def cell(text: str) -> str:
    """``text`` fit for a Markdown table cell: one line, pipes escaped."""
    return _inline(" ".join(text.split())) or NONE


def _inline(text: str) -> str:
    """``text`` on one line of a table: what is not printable escaped (printable), `|` too."""
    return printable(text).replace("|", "\\|")


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table's lines: the header, its rule, a line per row (cells as given)."""
    return [_row(header), _row(["---"] * len(header)), *(_row(r) for r in rows)]


def _gates(entry: KnobEntry) -> str:
    if entry.gates is None:
        return NONE
    text = cell(entry.gates.kernel)
    if entry.gates.pass_ is not None:
        text += f"; {_PASSES[entry.gates.pass_]}"
    return text


def _default(entry: KnobEntry) -> str:
    """`` `"1"` (on) ``; a disable knob adds what that means for its feature."""
    state = {True: "on", False: "off", None: None}[entry.default_on]
    if state is not None and entry.polarity is Polarity.DISABLE:
        feature = "off" if entry.default_on else "on"
        state += f"; disables its feature, which is {feature}"
    if entry.default is None:
        return state or NONE
    value = f"`{_inline(json.dumps(entry.default, ensure_ascii=False))}`"
    return f"{value} ({state})" if state else value


def _triage(entry: KnobEntry) -> str:
    if entry.triage is Triage.BREAKS_BITWISE:
        text = "**breaks-bitwise**"
        if entry.breaks is not None:
            text += f" ({entry.breaks.value})"
    elif entry.triage is Triage.EXEMPT and entry.reason:
        text = f"exempt: {cell(entry.reason)}"
    else:
        text = entry.triage.value
    if entry.expires is not None:
        until = f"waiver until {entry.expires.isoformat()}"
        text += f" ({until}, owner {cell(entry.owner)})" if entry.owner else f" ({until})"
    return text


def render_knobs(registry: Registry) -> list[str]:
    """The knob table, in the registry's order."""
    if not registry.knobs:
        return ["No knobs are registered."]
    rows = [
        [f"`{name}`", _gates(e), _default(e), _triage(e), cell(e.cost or "")]
        for name, e in registry.knobs.items()
    ]
    return table(["knob", "gates", "default", "triage", "cost when off"], rows)


def render_external(registry: Registry) -> list[str]:
    """The variables libraries read, in the registry's order."""
    if not registry.external:
        return ["No external variables are registered."]
    rows = [
        [f"`{name}`", cell(e.library or ""), cell(e.description), cell(e.cost or "")]
        for name, e in registry.external.items()
    ]
    return table(["variable", "read by", "what it does", "cost"], rows)


def fence(text: str, info: str) -> list[str]:
    """``text`` (lines ended by `\\n`) as a fenced code block, the fence longer than any
    backquote run inside, so that nothing inside ends it (a marker there is code)."""
    runs = [len(run) for run in re.findall(r"`+", text)]
    mark = "`" * max(3, max(runs, default=0) + 1)
    return [f"{mark}{info}", *text.removesuffix("\n").split("\n"), mark]


def render_profile(registry: Registry, name: str) -> list[str]:
    """A profile's recipe: what it is, its environment, its trainer config, what it costs."""
    # the exporters, only when a doc has a recipe
    from knobregistry.export.shell import sh_lines, sh_quote_printable
    from knobregistry.export.structured import config_yaml

    resolved = resolve_profile(registry, name)
    about = f"kind {resolved.kind.value}"
    if len(resolved.chain) > 1:
        about += "; extends " + ", ".join(f"`{p}`" for p in reversed(resolved.chain[:-1]))
    lines = [f"`{name}` ({about}): {printable(' '.join(resolved.description.split()))}", ""]
    env = sh_lines(resolved.env, resolved.unset, quote=sh_quote_printable)
    if env:
        lines += [f"Environment (`knobs export --profile {name}`):", ""]
        lines += [*fence("\n".join(env), "sh"), ""]
    else:
        lines += ["Environment: the profile sets no variable.", ""]
    if resolved.config:
        lines += [f"Trainer config (`knobs export --profile {name} --format config`):", ""]
        lines += [*fence(config_yaml(resolved.config, printable=True), "yaml"), ""]
    if resolved.costs:
        lines += ["What it costs:", ""]
        lines += [f"- `{_inline(c.subject)}`: {cell(c.text)}" for c in resolved.costs]
    else:
        lines.append("What it costs: nothing the registry records.")
    return lines


def render_block(registry: Registry, name: str, codes: CodeTable | None = None) -> list[str]:
    """The lines of block ``name`` (`knobs`, `external`, `profile:NAME` or, with ``codes``,
    `codes:PREFIX`), without markers."""
    if name == "knobs":
        return render_knobs(registry)
    if name == "external":
        return render_external(registry)
    if name.startswith("codes:"):
        if codes is None:
            raise ValueError(f"block {name} needs the table of codes")
        return codes(name.removeprefix("codes:"))
    return render_profile(registry, name.removeprefix("profile:"))


def default_blocks(registry: Registry) -> list[tuple[str | None, str]]:
    """The sections of a new page: (heading, block name); a None block is a heading alone."""
    sections: list[tuple[str | None, str]] = [("## Knobs", "knobs")]
    if registry.external:
        sections.append(("## External variables", "external"))
    if registry.profiles:
        sections.append((None, "## Profiles"))
        sections += [(f"### {p}", f"profile:{p}") for p in registry.profiles]
    return sections


def blocks_text(registry: Registry) -> list[str]:
    """Every default section with its markers and rendered block, blank-line separated."""
    lines: list[str] = []
    for heading, name in default_blocks(registry):
        if heading is None:
            lines += [name, ""]
            continue
        lines += [heading, "", f"<!-- knobs:begin {name} -->", ""]
        lines += [*render_block(registry, name), "", f"<!-- knobs:end {name} -->", ""]
    return lines


def render_page(registry: Registry, registry_ref: str | None, shown: str) -> str:
    """A new page: title, registry marker (when ``registry_ref``), what it is, every block."""
    lines = ["# Environment knobs", ""]
    if registry_ref is not None:
        lines += [f"<!-- knobs:registry {registry_ref} -->", ""]
    lines += [
        f"Generated from `{shown}` by `knobs docs --write`: the blocks between `knobs:begin`",
        "and `knobs:end` comments are rewritten from the registry, and `knobs check` fails",
        "when they differ from it. Text around them is yours.",
        "",
        *blocks_text(registry),
    ]
    return "\n".join(lines).rstrip("\n") + "\n"
