"""`knobs init` as a use case: the project scanned into a starting registry, then written.

`plan_init` scans the scope the registry will hold (as `knobs check` will scan it), finds
the stack settings that apply, and renders the starter; `write_init` writes it (and the
copy of the schema), never over an existing file unasked. Neither prints nor exits: the
command says what they return, and an `InitError` says what stopped them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from knobregistry._io.atomic import write_atomic
from knobregistry._io.lock import LockError, locked
from knobregistry._text.paths import shown
from knobregistry.catalogue import Platform
from knobregistry.init.starter import (
    SCHEMA_COPY,
    SchemaCopy,
    Starter,
    render_starter,
    schema_copy,
    schema_reference,
)
from knobregistry.project.scan_for import scan_for
from knobregistry.project.stack_use import StackUse, stack_use
from knobregistry.registry import Registry, ScanScope
from knobregistry.registry.pyproject import PyprojectError, project_settings
from knobregistry.registry.schema import schema_text
from scanner import Polarity, ScanResult


class InitError(Exception):
    """What stops `knobs init`, and how to go on."""


@dataclass(frozen=True, slots=True, kw_only=True)
class InitRequest:
    """What `knobs init` was asked for."""

    paths: tuple[Path, ...]  # the paths to scan (none: the current folder)
    output: Path
    force: bool = False
    match: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    platform: Platform | None = None
    environment: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class InitPlan:
    """A starting registry ready to write: what the scan found, and what goes where."""

    request: InitRequest
    result: ScanResult
    use: StackUse
    starter: Starter
    copy: Path | None  # the copy of the schema the registry points at, if it needs one
    schema: SchemaCopy | None  # what to do at ``copy``

    @property
    def writes_schema(self) -> bool:
        """Whether the copy of the schema is written beside the registry."""
        return self.copy is not None and self.schema is not None and self.schema.write


def refuse_to_overwrite(output: Path, force: bool) -> None:
    """Raise InitError when ``output`` exists and ``force`` was not given."""
    if output.exists() and not force:
        raise InitError(
            f"{output.as_posix()} already exists; pass --force to overwrite it, "
            "or --output PATH to write another file."
        )


def plan_init(request: InitRequest) -> InitPlan:
    """Scan the project for ``request``'s starting registry; raises InitError."""
    output = request.output
    folder = output.parent
    if not folder.is_dir():
        raise InitError(f"the folder {folder.as_posix()} does not exist; create it first.")
    refuse_to_overwrite(output, request.force)
    targets = list(request.paths) or [Path()]
    try:
        settings = project_settings(folder)
    except PyprojectError as exc:
        raise InitError(str(exc)) from exc
    # The scope the registry will hold, scanned as `knobs check` will scan it (and cached).
    scope = ScanScope(
        paths=tuple(shown(p, folder) for p in targets),
        exclude=request.exclude,
        match=request.match,
    )
    starting = Registry(
        path=output,
        root=folder,
        version=1,
        scan=scope,
        knobs={},
        external={},
        config={},
        profiles={},
    )
    result = scan_for(starting, targets, project=settings)
    use = stack_use(
        folder=folder,
        paths=targets,
        platform=request.platform,
        environment=request.environment,
        written={w.name for w in result.writes if w.name and w.launches},
        switches={
            k.name: k.off_value
            for k in result.knobs
            if k.default_on is True
            and k.off_value is not None
            and k.polarity is Polarity.ENABLE
            and not k.conflict
        },
        read={k.name for k in result.knobs},
    )
    reference = schema_reference(folder)
    copy = folder / SCHEMA_COPY if reference is None else None
    starter = render_starter(
        result,
        paths=[shown(p, folder) for p in targets],
        exclude=request.exclude,
        match=request.match,
        schema=reference if reference is not None else SCHEMA_COPY,
        stack=(*use.entries, *use.launched, *use.own),
    )
    return InitPlan(
        request=request,
        result=result,
        use=use,
        starter=starter,
        copy=copy,
        schema=schema_copy(copy, request.force) if copy is not None else None,
    )


def write_init(plan: InitPlan) -> None:
    """Write the starting registry (and the copy of its schema); raises InitError, leaving
    an existing registry as it is unless ``force``."""
    output = plan.request.output
    try:
        with locked(output):  # no `knobs triage --record` writes it meanwhile
            refuse_to_overwrite(output, plan.request.force)  # nor another init
            if plan.copy is not None and plan.writes_schema:
                text = schema_text()
                write_atomic(plan.copy, text, follow=False)  # a link put there meanwhile: replaced
            write_atomic(output, plan.starter.text)
    except LockError as exc:
        raise InitError(str(exc)) from exc
    except OSError as exc:
        failed = exc.filename or output
        raise InitError(f"cannot write {Path(failed).as_posix()}: {exc.strerror or exc}.") from exc
