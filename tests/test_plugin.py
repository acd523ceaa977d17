"""The pytest plugin through pytester: real pytest runs (subprocesses) over small real projects.

Each run is a subprocess: an in-process run would drop the modules it imported from
``sys.modules`` when it ends, and a later run would mix two copies of the scanner.
"""

from __future__ import annotations

import re
import textwrap
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from tests.sample_project import ENVS, MODEL, NEW_GATE, NEW_GATE_FAILURE, edit
from tests.sample_project import REGISTRY as SAMPLE_REGISTRY

pytest_plugins = ["pytester"]

PLUGIN_MODULE = "knobregistry.pytest.plugin"
# Until the pytest11 entry point is installed, load the plugin by name.
INSTALLED = any(ep.value == PLUGIN_MODULE for ep in entry_points(group="pytest11"))
# The projects' runs leave out hypothesis's pytest plugin, which they do not use: importing
# it is about a second of each run's two.
WITHOUT_HYPOTHESIS = ("-p", "no:hypothesispytest")
PLUGIN = (*(() if INSTALLED else ("-p", PLUGIN_MODULE)), *WITHOUT_HYPOTHESIS)

# The sample project's registry, with a profile for the profiles check to hold.
REGISTRY = (
    textwrap.dedent(SAMPLE_REGISTRY).lstrip("\n")
    + """\
profiles:
  fast:
    description: Every fusion on.
    kind: fast
    env:
      PRIMUS_HC_TRITON: "1"
    select:
      - default_on: true
        set: "on"
"""
)

INI = "[pytest]\nknobs_registry = registry.yaml\naddopts = -p no:cacheprovider\n"

# Counts scans across the controller and every xdist worker (a subprocess run only).
COUNTING_CONFTEST = """\
import os

import knobregistry.project.scan_for as run

_scan = run.scan


def counting(*args, **kwargs):
    with open(os.environ["KNOBS_SCAN_LOG"], "a", encoding="utf-8") as log:
        log.write(f"{os.getpid()}\\n")
    return _scan(*args, **kwargs)


run.scan = counting
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project in sync with its registry, with one ordinary test, the plugin on by ini."""
    pytester.makefile(".yaml", registry=REGISTRY)
    pytester.makeini(INI)
    pytester.mkpydir("pkg")
    (pytester.path / "pkg" / "envs.py").write_text(ENVS, encoding="utf-8")
    (pytester.path / "pkg" / "model.py").write_text(MODEL, encoding="utf-8")
    pytester.makepyfile(test_ok="def test_ok():\n    assert True\n")
    return pytester


def add_gate(pytester: pytest.Pytester) -> None:
    model = pytester.path / "pkg" / "model.py"
    model.write_text(MODEL + NEW_GATE, encoding="utf-8")


TITLES = {
    "inventory": "inventory in sync",
    "profiles": "profiles complete",
    "waivers": "waivers current, baseline up to date",
    "docs": "docs in sync",
}


def failure_section(output: str, name: str) -> str:
    """The text pytest prints under the failure header of the item ``name``."""
    lines = output.splitlines()
    header = f"knobs check: {TITLES[name]}"
    start = next(i for i, line in enumerate(lines) if line.strip("_ ") == header)
    end = next(
        i
        for i in range(start + 1, len(lines))
        if lines[i].startswith(("___", "===")) or lines[i].startswith("-" * 10)
    )
    body = [line for line in lines[start + 1 : end] if not line.startswith("[gw")]  # xdist's
    return "\n".join(body).strip("\n") + "\n"


def test_a_project_in_sync_passes_with_one_item_per_check(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(*PLUGIN, "-v")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(
        [
            "knobs: *registry.yaml",
            "*registry.yaml::inventory PASSED*",
            "*registry.yaml::profiles PASSED*",
            "*registry.yaml::waivers PASSED*",
            "*registry.yaml::docs PASSED*",
        ]
    )


def test_a_new_default_on_gate_fails_exactly_the_inventory_item(project: pytest.Pytester) -> None:
    add_gate(project)
    result = project.runpytest_subprocess(*PLUGIN, "-rf")
    result.assert_outcomes(passed=4, failed=1)
    output = result.stdout.str()
    assert failure_section(output, "inventory") == NEW_GATE_FAILURE
    assert "Traceback" not in output and "KnobsFailure" not in output
    result.stdout.fnmatch_lines(
        ["FAILED registry.yaml::inventory - pkg/model.py:9:7: KNB001 error: *"]
    )


def test_off_unless_asked_for(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", registry=REGISTRY)
    pytester.makepyfile(test_ok="def test_ok():\n    assert True\n")
    result = pytester.runpytest_subprocess(*PLUGIN, "-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "registry.yaml::" not in result.stdout.str()
    assert "knobs:" not in result.stdout.str()


def test_the_knobs_flag_finds_the_registry_from_the_root_folder(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".yaml", registry=REGISTRY)
    pytester.mkpydir("pkg")
    (pytester.path / "pkg" / "envs.py").write_text(ENVS, encoding="utf-8")
    (pytester.path / "pkg" / "model.py").write_text(MODEL + NEW_GATE, encoding="utf-8")
    result = pytester.runpytest_subprocess(*PLUGIN, "--knobs", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, failed=1)


def test_stops_at_the_failing_item_under_x(project: pytest.Pytester) -> None:
    add_gate(project)
    result = project.runpytest_subprocess(*PLUGIN, "-x")
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "stopping after 1 failures" in result.stdout.str()
    assert failure_section(result.stdout.str(), "inventory") == NEW_GATE_FAILURE


def test_one_scan_per_session(
    project: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "scans.log"
    project.makeconftest(COUNTING_CONFTEST)
    monkeypatch.setenv("KNOBS_SCAN_LOG", str(log))
    result = project.runpytest_subprocess(*PLUGIN)
    result.assert_outcomes(passed=5)
    assert len(log.read_text(encoding="utf-8").splitlines()) == 1


def test_under_xdist_the_controller_scans_once_for_every_worker(
    project: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("xdist")
    log = tmp_path / "scans.log"
    project.makeconftest(COUNTING_CONFTEST)
    monkeypatch.setenv("KNOBS_SCAN_LOG", str(log))
    add_gate(project)
    result = project.runpytest_subprocess(*PLUGIN, "-n", "2")
    result.assert_outcomes(passed=4, failed=1)
    assert failure_section(result.stdout.str(), "inventory") == NEW_GATE_FAILURE
    assert len(log.read_text(encoding="utf-8").splitlines()) == 1


def test_a_registry_that_does_not_load_fails_every_item(project: pytest.Pytester) -> None:
    (project.path / "registry.yaml").write_text("version: 2\n", encoding="utf-8")
    result = project.runpytest_subprocess(*PLUGIN)
    result.assert_outcomes(passed=1, failed=4)
    section = failure_section(result.stdout.str(), "docs")
    assert section == "registry.yaml:1:1: version: expected 1, got the integer 2\n"


def test_items_carry_the_knobs_marker(project: pytest.Pytester) -> None:
    add_gate(project)
    result = project.runpytest_subprocess(*PLUGIN, "-m", "not knobs", "--strict-markers")
    result.assert_outcomes(passed=1, deselected=4)
    only = project.runpytest_subprocess(*PLUGIN, "-m", "knobs", "--strict-markers")
    only.assert_outcomes(passed=3, failed=1, deselected=1)


def test_not_added_when_only_test_ids_are_asked_for(project: pytest.Pytester) -> None:
    add_gate(project)
    result = project.runpytest_subprocess(*PLUGIN, "test_ok.py::test_ok")
    result.assert_outcomes(passed=1)


def test_a_baseline_in_the_ini_hides_accepted_findings(project: pytest.Pytester) -> None:
    add_gate(project)
    baseline = (
        '{"version": 1, "findings": [{"code": "KNB001", "knob": "PRIMUS_NEW_TRITON", '
        '"path": "pkg/model.py", "count": 1}]}\n'
    )
    (project.path / "knobs-baseline.json").write_text(baseline, encoding="utf-8")
    project.makeini(INI + "knobs_baseline = knobs-baseline.json\n")
    project.runpytest_subprocess(*PLUGIN).assert_outcomes(passed=5)


def test_the_docs_item_fails_alone_on_a_hand_edited_block(project: pytest.Pytester) -> None:
    docs = project.path / "docs"
    docs.mkdir()
    page = "# Knobs\n\n<!-- knobs:begin knobs -->\n\n| stale |\n\n<!-- knobs:end knobs -->\n"
    (docs / "knobs.md").write_text(page, encoding="utf-8")
    result = project.runpytest_subprocess(*PLUGIN)
    result.assert_outcomes(passed=4, failed=1)
    assert failure_section(result.stdout.str(), "docs") == (
        "docs/knobs.md:5:1: KNB204 error: The generated block 'knobs' differs from what "
        "registry.yaml renders: it was edited by hand, or the registry changed since it was "
        "written.\n"
        "    Regenerate it (edit the registry, not the block): knobs docs --write docs/knobs.md\n"
    )


def test_registered_through_the_pytest11_entry_point(
    project: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A distribution that declares the entry point loads the plugin with no `-p`."""
    site = tmp_path / "site"
    info = site / "knobs_entry_point-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: knobs-entry-point\nVersion: 0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        f"[pytest11]\nknobs = {PLUGIN_MODULE}\n", encoding="utf-8"
    )
    monkeypatch.setenv("PYTHONPATH", str(site))
    add_gate(project)
    result = project.runpytest_subprocess(*WITHOUT_HYPOTHESIS)
    result.assert_outcomes(passed=4, failed=1)


def test_the_project_scanner_settings_reach_the_plugin_scan(project: pytest.Pytester) -> None:
    model = project.path / "pkg" / "model.py"
    model.write_text(
        MODEL + 'ELASTIC = os.environ.get("MYLAUNCHER_ELASTIC", "1") != "0"\n', encoding="utf-8"
    )
    edit(project.path / "registry.yaml", "  policy: all\n", "  policy: default-on\n")
    failed = project.runpytest_subprocess(*PLUGIN)
    failed.assert_outcomes(passed=4, failed=1)
    failed.stdout.fnmatch_lines(
        ["pkg/model.py:9:11: KNB001 error: MYLAUNCHER_ELASTIC is not registered *"]
    )
    (project.path / "pyproject.toml").write_text(
        '[tool.knobs]\nlaunch_facts = ["MYLAUNCHER_*"]\n', encoding="utf-8"
    )
    project.runpytest_subprocess(*PLUGIN).assert_outcomes(passed=5)


def test_the_collected_count_includes_the_knobs_items(project: pytest.Pytester) -> None:
    """One test and four knobs items: the header says 5, as the summary does."""
    result = project.runpytest_subprocess(*PLUGIN)
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["collected 5 items"])


def test_turned_off_its_ini_keys_stay_known_under_strict_config(
    pytester: pytest.Pytester,
) -> None:
    """`-p no:knobs` is the documented way to turn the plugin off; a project's
    `knobs_registry` then neither warns nor fails `--strict-config` (the keys are
    registered by their own entry point, knobregistry.pytest.ini)."""
    names = {e.value for e in entry_points(group="pytest11")}
    assert {"knobregistry.pytest.plugin", "knobregistry.pytest.ini"} <= names
    pytester.makeini("[pytest]\nknobs_registry = registry.yaml\n")
    pytester.makepyfile(test_ok="def test_ok():\n    assert True\n")
    result = pytester.runpytest_subprocess("-p", "no:knobs", "--strict-config")
    result.assert_outcomes(passed=1)
    assert "knobs_registry" not in result.stdout.str() + result.stderr.str()


def test_knobs_trace_reports_the_reads_the_registry_does_not_know(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".yaml", registry=REGISTRY)
    pytester.makepyfile(
        app=(
            "import os\n\n"
            "def known():\n"
            '    return os.environ.get("PRIMUS_HC_TRITON", "1") != "0"\n\n'
            "def new():\n"
            '    return os.environ.get("DEMO_BRAND_NEW")\n'
        ),
        test_app="import app\n\ndef test_reads():\n    app.known()\n    app.new()\n",
    )
    result = pytester.runpytest_subprocess(*PLUGIN, "--knobs-trace", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    lines = result.stdout.str().splitlines()
    start = next(i for i, line in enumerate(lines) if "knobs trace" in line)
    assert re.fullmatch(
        r"\d+ variables read by this process; 1 read by the project's code and unknown to "
        r"registry\.yaml:",
        lines[start + 1],
    )
    assert lines[start + 2] == "  DEMO_BRAND_NEW  app.py:7"


def test_knobs_trace_is_off_by_default(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_ok="import os\n\ndef test_ok():\n    os.environ.get('X_ANY')\n")
    result = pytester.runpytest_subprocess(*PLUGIN, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "knobs trace" not in result.stdout.str()


def test_a_file_nested_too_deep_fails_the_inventory_item_only(project: pytest.Pytester) -> None:
    # libcst would crash the process on it (issue 18): the plugin reports it as a file
    # that could not be scanned, and the session goes on.
    deep = "(" * 1500 + 'os.environ.get("PRIMUS_DEEP")' + ")" * 1500
    (project.path / "pkg" / "deep.py").write_text(f"import os\nx = {deep}\n", encoding="utf-8")
    result = project.runpytest_subprocess(*PLUGIN, "-rf")
    result.assert_outcomes(passed=4, failed=1)
    output = result.stdout.str()
    assert "Traceback" not in output
    result.stdout.fnmatch_lines(
        [
            "pkg/deep.py:2:1: KNB007 error: This file could not be scanned, * nests more than 200 "
            "*",
            "FAILED registry.yaml::inventory - pkg/deep.py:2:1: KNB007 error: This file co*",
        ]
    )


@pytest.mark.slow
def test_the_registry_file_given_to_pytest_is_collected_once(project: pytest.Pytester) -> None:
    """`pytest registry.yaml` runs its items (it said "not found"); the folder holding it,
    or one item by its id, collects them without a second copy."""
    alone = project.runpytest_subprocess(*PLUGIN, "registry.yaml", "-v")
    alone.assert_outcomes(passed=4)
    alone.stdout.fnmatch_lines(["*registry.yaml::inventory PASSED*"])
    folder = project.runpytest_subprocess(*PLUGIN, ".")
    folder.assert_outcomes(passed=5)
    one = project.runpytest_subprocess(*PLUGIN, "registry.yaml::profiles")
    one.assert_outcomes(passed=1)
