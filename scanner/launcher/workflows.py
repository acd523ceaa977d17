"""CI definitions: GitHub Actions workflows and composite actions, GitLab CI files.

GitHub Actions: the ``env:`` of the workflow, of each job and of each step are writes
(``scanner.launcher.env_blocks``); a step's ``run:`` is a bash script (unless the step
or its job's defaults name another ``shell:``), read by the shell layer at its place
in the file, and so is the ``script`` input a job gives a reusable workflow
(``uses: pytorch/test-infra/.github/workflows/linux_job_v2.yml`` runs it with bash).
``echo "X=1" >> "$GITHUB_ENV"`` (or ``| tee -a "$GITHUB_ENV"``) in a script sets X for
the later steps: a write. GitLab CI: ``variables:`` at the top and in each job are
writes, and so are those of ``rules:`` (the workflow's, a job's), under the rule's
``if:``; a job's ``before_script:``, ``script:`` and ``after_script:`` lines are one
shell script; ``$X`` in its other values is GitLab's own read
(``scanner.launcher.ci_expansions``). What the CI system sets itself (``GITHUB_*``,
``RUNNER_*``, ``CI_*``, ``GITLAB_*``) is a fact.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

import yaml

from scanner.languages import Language
from scanner.launcher.ci_expansions import expansion_reads
from scanner.launcher.embedded import Embedded, Script, analyse_embedded, place, script_of
from scanner.launcher.env_blocks import block_writes
from scanner.launcher.yaml_documents import compose
from scanner.model import (
    DynamicRead,
    FileResult,
    LauncherRead,
    ScanError,
    Site,
    Write,
    WriteKind,
)
from scanner.patterns import matches
from scanner.settings import Settings

GITHUB_FACTS: Final = ("GITHUB_*", "RUNNER_*", "ACTIONS_*")
GITLAB_FACTS: Final = ("CI_*", "GITLAB_*")
GITHUB_EXPANDED: Final = ("${{", "$(")
GITLAB_EXPANDED: Final = ("$",)
_SCRIPTS: Final = ("before_script", "script", "after_script")
_BASH: Final = frozenset({"bash", "sh"})  # shells whose scripts the shell layer reads
# A line of a run: block that appends NAME=value to the file GitHub reads after the step.
_GITHUB_ENV: Final = re.compile(
    r"""echo\s+(?:-[neE]\s+)*(?P<q>["']?)(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>.*?)(?P=q)"""
    r"""\s*(?:>>|\|\s*tee\s+(?:-a|--append))\s*["']?\$\{?GITHUB_ENV\}?["']?\s*(?:[;&|#>].*)?$"""
)


@dataclass(slots=True)
class _Found:
    sites: list[Site]
    dynamic: list[DynamicRead]
    writes: list[Write]
    errors: list[ScanError]

    def add(self, found: Embedded) -> None:
        self.sites.extend(found.result.sites)
        self.dynamic.extend(found.result.dynamic)
        self.writes.extend(found.result.writes)
        if found.error is not None:
            self.errors.append(found.error)


def read_ci(rel: str, data: bytes, text: str, settings: Settings, path: Path) -> LauncherRead:
    """A CI file's reader (see scanner.languages)."""
    return analyse_ci(rel, text, settings)


def analyse_ci(rel: str, text: str, settings: Settings) -> LauncherRead:
    """The writes of a CI file's environment blocks, and the reads, dynamic reads and
    writes of the shell scripts its jobs run."""
    documents = compose(rel, text)
    if isinstance(documents, ScanError):
        return LauncherRead(FileResult(), documents)
    found = _Found([], [], [], [])
    gitlab = ".gitlab" in rel.split("/")[:-1] or rel.rsplit("/", 1)[-1].startswith(".gitlab-ci")
    facts = GITLAB_FACTS if gitlab else GITHUB_FACTS
    own = replace(settings, launch_facts=(*settings.launch_facts, *facts))
    for document in documents:
        if not isinstance(document, yaml.MappingNode):
            continue
        if gitlab:
            _gitlab(rel, text, document, own, found)
            found.sites.extend(expansion_reads(rel, text, document, own))
        else:
            _github(rel, text, document, own, found)
    result = FileResult(
        sites=tuple(sorted(found.sites, key=lambda s: s.sort_key)),
        dynamic=tuple(sorted(found.dynamic, key=lambda d: d.sort_key)),
        writes=tuple(sorted(found.writes, key=lambda w: w.sort_key)),
    )
    return LauncherRead(result, found.errors[0] if found.errors else None)


def _items(node: yaml.Node) -> Iterator[tuple[str, yaml.Node]]:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                yield str(key.value), value


def _get(node: yaml.Node, key: str) -> yaml.Node | None:
    return next((value for name, value in _items(node) if name == key), None)


def _shell_of(node: yaml.Node | None) -> str | None:
    """The ``shell:`` a step or ``defaults: run:`` names, None when none."""
    if node is None:
        return None
    shell = _get(node, "shell")
    if isinstance(shell, yaml.ScalarNode):
        return str(shell.value).split()[0].rsplit("/", 1)[-1] if str(shell.value).strip() else None
    return None


def _github(rel: str, text: str, root: yaml.MappingNode, settings: Settings, found: _Found) -> None:
    env = _get(root, "env")
    if isinstance(env, yaml.MappingNode):
        found.writes.extend(_env(rel, env, "env", settings))
    defaults = _get(root, "defaults")
    default_shell = _shell_of(_get(defaults, "run")) if defaults is not None else None
    jobs = _get(root, "jobs")
    for job_name, job in _items(jobs) if jobs is not None else ():
        where = f"jobs.{job_name}"
        job_env = _get(job, "env")
        if isinstance(job_env, yaml.MappingNode):
            found.writes.extend(_env(rel, job_env, f"{where}.env", settings))
        defaults = _get(job, "defaults")
        shell = _shell_of(_get(defaults, "run")) if defaults is not None else None
        _steps(rel, text, _get(job, "steps"), where, shell or default_shell, settings, found)
        given = _get(job, "with") if _get(job, "uses") is not None else None
        script = _get(given, "script") if given is not None else None
        if isinstance(script, yaml.ScalarNode):
            embedded = script_of([script], text, f"{where}.with.script")
            found.add(analyse_embedded(rel, embedded, settings))
            found.writes.extend(_github_env(rel, embedded, settings))
    runs = _get(root, "runs")  # a composite action
    if runs is not None:
        _steps(rel, text, _get(runs, "steps"), "runs", default_shell, settings, found)


def _steps(
    rel: str,
    text: str,
    steps: yaml.Node | None,
    where: str,
    shell: str | None,
    settings: Settings,
    found: _Found,
) -> None:
    if not isinstance(steps, yaml.SequenceNode):
        return
    for index, step in enumerate(steps.value):
        at = f"{where}.steps[{index}]"
        step_env = _get(step, "env")
        if isinstance(step_env, yaml.MappingNode):
            found.writes.extend(_env(rel, step_env, f"{at}.env", settings))
        run = _get(step, "run")
        if (
            not isinstance(run, yaml.ScalarNode)
            or (_shell_of(step) or shell or "bash") not in _BASH
        ):
            continue
        script = script_of([run], text, f"{at}.run")
        found.add(analyse_embedded(rel, script, settings))
        found.writes.extend(_github_env(rel, script, settings))


def _env(rel: str, block: yaml.MappingNode, where: str, settings: Settings) -> Iterator[Write]:
    return block_writes(rel, block, where, settings, language=Language.CI, expanded=GITHUB_EXPANDED)


def _github_env(rel: str, script: Script, settings: Settings) -> Iterator[Write]:
    """``echo "X=1" >> "$GITHUB_ENV"``: X is set for the job's later steps."""
    if "GITHUB_ENV" not in script.written:
        return
    for number, line in enumerate(script.written.split("\n"), start=1):
        found = _GITHUB_ENV.search(line)
        if found is None:
            continue
        name, value = found.group("name"), found.group("value")
        if settings.match and not matches(name, settings.match):
            continue
        file_line, column = place(script, number, found.start() + 1)
        yield Write(
            name=name,
            path=rel,
            line=file_line,
            column=column,
            kind=WriteKind.PRINTED,
            function=script.function,
            value=None if "$" in value or "`" in value else value,
            language=Language.CI,
        )


def _gitlab(rel: str, text: str, root: yaml.MappingNode, settings: Settings, found: _Found) -> None:
    for name, node in _items(root):
        if name == "variables" and isinstance(node, yaml.MappingNode):
            found.writes.extend(_variables(rel, node, "variables", settings))
            continue
        if not isinstance(node, yaml.MappingNode):
            continue
        variables = _get(node, "variables")
        if isinstance(variables, yaml.MappingNode):
            found.writes.extend(_variables(rel, variables, f"{name}.variables", settings))
        found.writes.extend(_rule_variables(rel, _get(node, "rules"), f"{name}.rules", settings))
        scalars = [s for key in _SCRIPTS for s in _lines(_get(node, key))]
        if scalars:
            script = script_of(scalars, text, f"{name}.script")
            found.add(analyse_embedded(rel, script, settings))


def _variables(
    rel: str, block: yaml.MappingNode, where: str, settings: Settings
) -> Iterator[Write]:
    """GitLab's ``variables:``; a variable given as ``{value: ..., description: ...}``
    has that value."""
    plain = yaml.MappingNode(block.tag, [(k, _get(v, "value") or v) for k, v in block.value])
    return block_writes(rel, plain, where, settings, language=Language.CI, expanded=GITLAB_EXPANDED)


def _rule_variables(
    rel: str, rules: yaml.Node | None, where: str, settings: Settings
) -> Iterator[Write]:
    """The ``variables:`` of ``rules:`` (``workflow:`` or a job's): writes under the
    rule's ``if:``, as its text."""
    if not isinstance(rules, yaml.SequenceNode):
        return
    for index, rule in enumerate(rules.value):
        variables = _get(rule, "variables")
        if not isinstance(variables, yaml.MappingNode):
            continue
        test = _get(rule, "if")
        condition = str(test.value).strip() if isinstance(test, yaml.ScalarNode) else None
        for write in _variables(rel, variables, f"{where}[{index}].variables", settings):
            yield replace(write, condition=condition)


def _lines(node: yaml.Node | None) -> Iterator[yaml.ScalarNode]:
    """The script lines of ``script:``: one string, or a list (nested lists flattened)."""
    if isinstance(node, yaml.ScalarNode):
        yield node
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from _lines(item)
