"""Expected reads written into fixture files as marker comments, position and all.

A marker is a comment line under the read it describes, with a caret under the
read's first character:

    return os.environ.get("PRIMUS_HC_TRITON", "1") != "0"
    #      ^ PRIMUS_HC_TRITON on default="1" off="0" function=is_triton_path_enabled

The read is on the nearest line above that is not a marker, at the caret's column.
After the name comes the verdict, `on`, `off` or `none` (default_on true, false,
null), then fields whose omission means their usual value: `kind` (the gate kind:
boolean for on and off, value for none), `default` and `off` (JSON strings; null
when left out), `polarity` (enable), `function` (<module>), `read` (get) and `via`
(null).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from scanner import GateKind, Polarity, ReadKind, ScanResult

MARKER = re.compile(
    r"^(?P<lead>\s*#\s*)\^ (?P<name>[A-Z_][A-Z0-9_]*) (?P<verdict>on|off|none)\b(?P<rest>.*)$"
)
_FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')
_VERDICTS = {"on": True, "off": False, "none": None}


@dataclass(frozen=True, slots=True, kw_only=True)
class ExpectedRead:
    """One read as a marker states it, and as a scan reports it."""

    name: str
    path: str
    line: int
    column: int
    kind: GateKind
    default: str | None
    default_on: bool | None
    off_value: str | None
    polarity: Polarity
    function: str = "<module>"
    read: ReadKind = ReadKind.GET
    via: str | None = None


def _string(text: str) -> str:
    value = json.loads(text)
    assert isinstance(value, str), text
    return value


def parse_marker(text: str, *, path: str, line: int) -> ExpectedRead | None:
    """The read a marker line states (``line`` is the read's line); None when not a marker."""
    found = MARKER.match(text)
    if found is None:
        return None
    verdict = _VERDICTS[found["verdict"]]
    fields = dict(_FIELD.findall(found["rest"]))
    unknown = set(fields) - {"kind", "default", "off", "polarity", "function", "read", "via"}
    assert not unknown, f"{path}:{line}: unknown marker fields {sorted(unknown)}"
    usual = GateKind.VALUE if verdict is None else GateKind.BOOLEAN
    return ExpectedRead(
        name=found["name"],
        path=path,
        line=line,
        column=len(found["lead"]) + 1,
        kind=GateKind(fields["kind"]) if "kind" in fields else usual,
        default=_string(fields["default"]) if "default" in fields else None,
        default_on=verdict,
        off_value=_string(fields["off"]) if "off" in fields else None,
        polarity=Polarity(fields.get("polarity", "enable")),
        function=fields.get("function", "<module>"),
        read=ReadKind(fields.get("read", "get")),
        via=fields.get("via"),
    )


def expected_reads(root: Path) -> list[ExpectedRead]:
    """Every read the markers of the files under ``root`` state, sorted."""
    found: list[ExpectedRead] = []
    for file in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = file.relative_to(root).as_posix()
        anchor = 0
        for number, text in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            read = parse_marker(text, path=rel, line=anchor)
            if read is None:
                anchor = number
            else:
                assert anchor, f"{rel}:{number}: a marker with no line above it"
                found.append(read)
    return sorted(found, key=_key)


def reads_of(result: ScanResult) -> list[ExpectedRead]:
    """Every site of ``result`` in the markers' terms, sorted."""
    return sorted(
        (
            ExpectedRead(
                name=s.name,
                path=s.path,
                line=s.line,
                column=s.column,
                kind=s.gate.kind,
                default=s.default,
                default_on=s.default_on,
                off_value=s.gate.off_value,
                polarity=s.gate.polarity,
                function=s.function,
                read=s.kind,
                via=s.via,
            )
            for knob in result.knobs
            for s in knob.sites
        ),
        key=_key,
    )


def _key(read: ExpectedRead) -> tuple[str, int, int, str]:
    return (read.path, read.line, read.column, read.name)


def marker_for(read: ExpectedRead) -> str:
    """The marker line that states ``read`` (its caret under the read's column)."""
    verdict = {True: "on", False: "off", None: "none"}[read.default_on]
    parts = [f"^ {read.name} {verdict}"]
    usual = GateKind.VALUE if read.default_on is None else GateKind.BOOLEAN
    if read.kind is not usual:
        parts.append(f"kind={read.kind.value}")
    if read.default is not None:
        parts.append(f"default={json.dumps(read.default)}")
    if read.off_value is not None:
        parts.append(f"off={json.dumps(read.off_value)}")
    if read.polarity is not Polarity.ENABLE:
        parts.append(f"polarity={read.polarity.value}")
    if read.function != "<module>":
        parts.append(f"function={read.function}")
    if read.read is not ReadKind.GET:
        parts.append(f"read={read.read.value}")
    if read.via is not None:
        parts.append(f"via={read.via}")
    lead = "#" + " " * (read.column - 2)
    assert read.column >= 2, f"{read.path}:{read.line}: a caret needs column 2 or more"
    return lead + " ".join(parts)
