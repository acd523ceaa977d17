"""The pytest plugin: `knobs check` as test items, one per check, off unless asked for.

Turn it on with `--knobs`, or with `knobs_registry = PATH` in the pytest
configuration (relative to the file that holds it); `knobs_baseline = FILE` adds a
baseline. The items sit under the registry file: `registry.yaml::inventory`,
`::profiles`, `::waivers` and `::docs`; a failure shows the `knobs check` lines
alone. The check runs once per session: under pytest-xdist the controller runs it
and hands the outcome to every worker.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from knobregistry._io.files import not_regular, reason
from knobregistry._io.jsontext import loads
from knobregistry._text.paths import shown
from knobregistry._text.printable import printable
from knobregistry.check.all_checks import group_of
from knobregistry.check.baseline import BaselineError
from knobregistry.check.diagnostics import Group, Severity
from knobregistry.registry import Registry, RegistryError, find_registry, load_registry
from knobregistry.report.check_text import fix_lines
from knobregistry.testing import check_project

if TYPE_CHECKING:
    from knobregistry.trace.in_process import SessionTrace

WORKER_KEY = "knobs_outcome"


@dataclass(frozen=True, slots=True)
class Outcome:
    """The check, reduced to what items print: problems fail every item; errors fail theirs."""

    problems: tuple[str, ...] = ()
    failures: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (group, report lines)

    def lines(self, group: str) -> list[str]:
        if self.problems:
            return list(self.problems)
        return [line for name, lines in self.failures if name == group for line in lines]

    def to_json(self) -> str:
        return json.dumps({"problems": self.problems, "failures": self.failures})

    @classmethod
    def from_json(cls, text: str) -> Outcome:
        data: dict[str, Any] = loads(text)
        failures = tuple((str(g), tuple(str(x) for x in lines)) for g, lines in data["failures"])
        return cls(tuple(str(p) for p in data["problems"]), failures)


_TRACE: pytest.StashKey[SessionTrace] = pytest.StashKey()
_OUTCOME = pytest.StashKey[Outcome]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("knobs", "knob registry (knobregistry)")
    group.addoption(
        "--knobs",
        action="store_true",
        default=False,
        help="Run `knobs check` as test items (also on when knobs_registry is set).",
    )
    group.addoption(
        "--knobs-trace",
        action="store_true",
        default=False,
        help="Trace the environment reads of this test session (Python level, in-process) "
        "and report those of the project's code that the registry does not know.",
    )
    # The ini keys are registered by knobregistry.pytest.ini, a plugin of their own, so that
    # they stay known when this one is turned off with `-p no:knobs`.


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "knobs: a `knobs check` item of knobregistry's plugin")
    if config.getoption("knobs_trace") and not hasattr(config, "workerinput"):
        from knobregistry.trace.in_process import SessionTrace  # only when asked for

        tracer = SessionTrace()
        tracer.start()
        config.stash[_TRACE] = tracer


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """`--knobs-trace`: the reads of the project's code that the registry does not know."""
    tracer = config.stash.get(_TRACE, None)
    if tracer is None:
        return
    try:
        registry: Registry | None = load_registry(registry_path(config))
    except RegistryError:
        registry = None
    reads, unknown = tracer.finish(config.rootpath, registry)
    against = registry.path.name if registry is not None else "no registry (none found)"
    terminalreporter.section("knobs trace")
    names = {r.name for r in reads}
    terminalreporter.line(
        f"{len(names)} variables read by this process; {len(unknown)} read by the project's "
        f"code and unknown to {against}:"
    )
    for entry in unknown:
        where = f"{entry.path}:{entry.line}" if entry.line is not None else entry.path
        terminalreporter.line(f"  {printable(entry.name)}  {printable(where)}")
    if getattr(config.option, "numprocesses", None):
        terminalreporter.line(
            "note: the tests ran in pytest-xdist workers, which --knobs-trace does not trace; "
            "run with -n 0 to trace them."
        )


def _ini_path(config: pytest.Config, name: str) -> Path | None:
    value = str(config.getini(name) or "").strip()
    if not value:
        return None
    base = config.inipath.parent if config.inipath is not None else config.rootpath
    return base / value


def enabled(config: pytest.Config) -> bool:
    return bool(config.getoption("knobs")) or _ini_path(config, "knobs_registry") is not None


def registry_path(config: pytest.Config) -> Path:
    """The ini's registry, else the one found from the root folder as `knobs` finds one."""
    return _ini_path(config, "knobs_registry") or find_registry(start=config.rootpath)


# Each path setting, and what it must name.
PATH_SETTINGS = (
    ("knobs_registry", "the registry file"),
    ("knobs_baseline", "a baseline file, as `knobs check --write-baseline FILE` writes one"),
)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Refuse a path setting that names no regular file, before anything runs (under
    pytest-xdist on the controller, before the workers start)."""
    config = session.config
    if not enabled(config) or hasattr(config, "workerinput"):
        return
    for name, what in PATH_SETTINGS:
        problem = _setting_problem(config, name, what)
        if problem is not None:
            raise pytest.UsageError(problem)


def _setting_problem(config: pytest.Config, name: str, what: str) -> str | None:
    """`knobs_registry = regdir: cannot read regdir: it is a folder, ...`, or None."""
    path = _ini_path(config, name)
    if path is None:
        return None
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        why = reason(exc)
    else:
        if stat.S_ISREG(mode):
            return None
        why = not_regular(mode)
    here = Path.cwd()
    if config.inipath is not None:
        base = shown(config.inipath, here)
    else:
        base = f"the root folder {config.rootpath.as_posix()}"
    value = str(config.getini(name)).strip()
    return (
        f"{name} = {value}: cannot read {shown(path, here)}: {why}; "
        f"set {name} to {what} (a path relative to {base})."
    )


def pytest_report_header(config: pytest.Config) -> str | None:
    if not enabled(config):
        return None
    try:
        return f"knobs: {registry_path(config).as_posix()}"
    except RegistryError as error:
        return f"knobs: {error}"


def run_outcome(config: pytest.Config) -> Outcome:
    """Run every check once (paths relative to the root folder) and keep what items need."""
    try:
        result = check_project(
            registry_path(config),
            baseline=_ini_path(config, "knobs_baseline"),
            cwd=config.rootpath,
        )
    except RegistryError as error:
        return Outcome(problems=tuple(p.render() for p in error.problems))
    except BaselineError as error:
        return Outcome(problems=tuple(str(error).splitlines()))
    failures = tuple(
        (group_of(d.code).item, (d.render(), *fix_lines(d)))
        for d in result.diagnostics
        if d.severity is Severity.ERROR
    )
    return Outcome(failures=failures)


def outcome(config: pytest.Config) -> Outcome:
    """The session's outcome: from the xdist controller, else computed on first use."""
    if _OUTCOME not in config.stash:
        given = getattr(config, "workerinput", {}).get(WORKER_KEY)
        config.stash[_OUTCOME] = Outcome.from_json(given) if given else run_outcome(config)
    return config.stash[_OUTCOME]


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist, on the controller: check once, and send the outcome to each worker."""
    if enabled(node.config):
        node.workerinput[WORKER_KEY] = outcome(node.config).to_json()


class KnobsFailure(Exception):
    """A knobs item failed; its lines are the report."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


class KnobsItem(pytest.Item):
    """One check of `knobs check`: fails with that check's lines."""

    def __init__(self, *, group: Group, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.group = group
        self.add_marker("knobs")

    def runtest(self) -> None:
        lines = outcome(self.config).lines(self.group.item)
        if lines:
            raise KnobsFailure(lines)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, KnobsFailure):
            return "\n".join(excinfo.value.lines)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"knobs check: {self.group.title}"


class KnobsFile(pytest.File):
    """The registry file, as the parent of the knobs items."""

    def collect(self) -> Iterator[KnobsItem]:
        for group in Group:
            yield KnobsItem.from_parent(self, name=group.item, group=group)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> KnobsFile | None:
    """The registry file, when pytest is given it by name (`pytest registry.yaml`, or one
    of its items); found in a folder pytest walks, it is added after the tests instead."""
    config = parent.config
    if not enabled(config):
        return None
    try:
        path = registry_path(config)
    except RegistryError:
        return None
    here = config.invocation_params.dir
    named = {(here / arg.split("::", 1)[0]).absolute() for arg in config.args if arg}
    if file_path.absolute() != path.absolute() or file_path.absolute() not in named:
        return None
    return KnobsFile.from_parent(parent, path=file_path)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Add the knobs items (before -k and -m select), unless only test ids were asked for
    or pytest collected the registry file itself."""
    if not enabled(config) or _only_test_ids(config):
        return
    if any(isinstance(item.parent, KnobsFile) for item in items):
        return
    try:
        path = registry_path(config)
    except RegistryError:
        path = config.rootpath / "registry.yaml"  # the items fail and say why
    parent = KnobsFile.from_parent(session, path=path.absolute())
    added = list(parent.collect())
    items.extend(added)
    session.testscollected += len(added)
    # Told like any collected file, so the "collected N items" header counts them too.
    report = pytest.CollectReport(parent.nodeid, "passed", None, list(added))
    config.hook.pytest_collectreport(report=report)


def _only_test_ids(config: pytest.Config) -> bool:
    args = [a for a in config.args if a]
    return bool(args) and all("::" in a for a in args)
