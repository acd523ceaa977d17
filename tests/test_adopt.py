"""Adoption on code you do not own: `knobs init` then `knobs check` passes on a library as
it is (tests/data/adopt/vendored, written in the style of megatron-core and torch), and the
check still fails when that code drifts from what init recorded."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from knobregistry.registry import holds_name, load_registry
from knobregistry.registry.model import VARIABLE_NAME
from tests.conftest import REPO, run_knobs, write_tree
from tests.sample_project import edit

SAMPLE = REPO / "tests" / "data" / "adopt" / "vendored"

INIT = """\
Wrote registry.yaml: 5 knobs (3 on by default), every one untriaged.
Wrote registry.schema.json: the registry's JSON schema, which the first line of \
registry.yaml points editors at; commit it beside it.
Roles proposed from the code: 4 value, 1 unknown; confirm each by writing `role: ROLE`.
Undecided: 2 knobs whose gate the scan could not decide (`undecided:` in the registry); \
no profile sets them, and `knobs check` lists them.
Conflict in PYTORCH_CUDA_ALLOC_CONF: no single value turns every site off; how each site \
reads it is recorded under `sites`, which `knobs check` holds the code to.
Conflict in TORCHINDUCTOR_SIZE_ASSERTS: on by default at vendored/inductor/config.py:4 but \
off by default at vendored/testing/inductor_utils.py:5; how each site reads it is recorded \
under `sites`, which `knobs check` holds the code to.
Next: say what each knob gates, triage it, and run `knobs check`.
Excluded 1 name that no registry can hold (letters, digits and '_' only), which \
`knobs check` leaves out too: 'ProgramFiles(x86)'.
"""

SITES = """\
  TORCHINDUCTOR_SIZE_ASSERTS:
    # on by default (only unsetting it turns it off); read at vendored/inductor/config.py:4 \
and 1 more site
    # conflict: on by default at vendored/inductor/config.py:4 but off by default at \
vendored/testing/inductor_utils.py:5
    default_on: null
    undecided: "no single value turns every site off (vendored/inductor/config.py:4, \
vendored/testing/inductor_utils.py:5)"
    role:
      proposed: value
      reason: "the name TORCHINDUCTOR_SIZE_ASSERTS says SIZE (a size, a count, a path or a name)"
    triage: untriaged
    # how each site reads it: `knobs check` fails when the code reads it otherwise
    sites:
      - {path: "vendored/inductor/config.py", function: "<module>", default: "1", \
default_on: true, off_value: "0"}
      - {path: "vendored/testing/inductor_utils.py", function: "patch_size_asserts", \
default: null, default_on: false, off_value: null}
"""

CHECK = """\
vendored/core/distributed/ddp_config.py:11:46: KNB008 note: PYTORCH_CUDA_ALLOC_CONF is read here \
(and at 1 more site), and registry.yaml registers its gate as undecided: no single value \
turns every site off (vendored/core/distributed/ddp_config.py:11, \
vendored/core/transformer/cuda_graphs.py:7). No profile sets it until someone decides.
    Read the code (`knobs explain PYTORCH_CUDA_ALLOC_CONF`), then in \
knobs.PYTORCH_CUDA_ALLOC_CONF write `default_on` (true or false for a switch, null for a \
value) and remove `undecided`.
vendored/inductor/config.py:4:16: KNB008 note: TORCHINDUCTOR_SIZE_ASSERTS is read here (and at 1 \
more site), and registry.yaml registers its gate as undecided: no single value turns every \
site off (vendored/inductor/config.py:4, vendored/testing/inductor_utils.py:5). No profile \
sets it until someone decides.
    Read the code (`knobs explain TORCHINDUCTOR_SIZE_ASSERTS`), then in \
knobs.TORCHINDUCTOR_SIZE_ASSERTS write `default_on` (true or false for a switch, null for a \
value) and remove `undecided`.

Found 2 notes: 6 knobs in 5 files checked against registry.yaml (policy all).
"""


def adopted(tmp_path: Path) -> Path:
    """A copy of the sample library, with the registry `knobs init` wrote for it."""
    shutil.copytree(SAMPLE, tmp_path / "vendored")
    result = run_knobs("init", "vendored", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, INIT, "")
    return tmp_path


def initialised(root: Path, scope: str, files: Mapping[str, str]) -> str:
    """The registry `knobs init SCOPE` writes for ``files``, written under ``root``."""
    write_tree(root, files)
    init = run_knobs("init", scope, cwd=root)
    assert (init.returncode, init.stderr) == (0, "")
    return (root / "registry.yaml").read_text(encoding="utf-8")


def test_init_then_check_passes_on_code_you_do_not_own(tmp_path: Path) -> None:
    root = adopted(tmp_path)
    text = (root / "registry.yaml").read_text(encoding="utf-8")
    assert SITES in text
    assert (
        '\n# Not registered, as no registry can hold the name: "ProgramFiles(x86)".\n'
        "# `knobs check` leaves such names out too.\n"
    ) in text
    sites = load_registry(root / "registry.yaml").knobs["TORCHINDUCTOR_SIZE_ASSERTS"].sites
    assert sites is not None and [(s.path, s.default, s.switch, s.off_value) for s in sites] == [
        ("vendored/inductor/config.py", "1", True, "0"),
        ("vendored/testing/inductor_utils.py", None, True, None),
    ]
    result = run_knobs("check", cwd=root)
    assert (result.returncode, result.stdout, result.stderr) == (0, CHECK, "")


def test_a_recorded_site_that_changes_its_default_fails(tmp_path: Path) -> None:
    root = adopted(tmp_path)
    config = root / "vendored/inductor/config.py"
    edit(config, '"TORCHINDUCTOR_SIZE_ASSERTS", "1"', '"TORCHINDUCTOR_SIZE_ASSERTS", "0"')
    result = run_knobs("check", cwd=root)
    assert result.returncode == 1
    assert (
        "vendored/inductor/config.py:4:16: KNB003 error: TORCHINDUCTOR_SIZE_ASSERTS is not read as "
        "registry.yaml:90 records under `sites`: read at vendored/inductor/config.py (in "
        '<module>): default "0", off by default, "0" turns it off; no longer read at '
        'vendored/inductor/config.py (in <module>): default "1", on by default, "0" turns it '
        "off.\n"
        "    If the change is intended (code you do not own was upgraded), record the sites as "
        "they read it now, in registry.yaml under knobs.TORCHINDUCTOR_SIZE_ASSERTS:\n"
        "      sites:\n"
        '        - {path: "vendored/inductor/config.py", function: "<module>", default: "0", '
        'default_on: false, off_value: "0"}\n'
        '        - {path: "vendored/testing/inductor_utils.py", function: "patch_size_asserts", '
        "default: null, default_on: false, off_value: null}\n"
        "    and review its triage; otherwise restore the read in the code.\n"
    ) in result.stdout
    assert result.stdout.endswith(
        "\nFound 1 error and 2 notes: 6 knobs in 5 files checked against registry.yaml "
        "(policy all).\n"
    )


def read_another_way(root: Path) -> None:
    """A new module reads TORCHINDUCTOR_SIZE_ASSERTS as no recorded site does."""
    (root / "vendored/inductor/fast.py").write_text(
        'import os\n\nFAST = os.environ.get("TORCHINDUCTOR_SIZE_ASSERTS", "0") == "1"\n',
        encoding="utf-8",
    )


def remove_a_recorded_site(root: Path) -> None:
    """The module of a recorded site is gone."""
    (root / "vendored/testing/inductor_utils.py").unlink()


@pytest.mark.parametrize(
    ("drift", "finding"),
    [
        pytest.param(
            read_another_way,
            "vendored/inductor/fast.py:3:8: KNB003 error: TORCHINDUCTOR_SIZE_ASSERTS is not read "
            "as "
            "registry.yaml:90 records under `sites`: read at vendored/inductor/fast.py (in "
            '<module>): default "0", off by default, "0" turns it off.',
            id="a-new-site-that-reads-it-another-way",
        ),
        pytest.param(
            remove_a_recorded_site,
            "vendored/inductor/config.py:4:16: KNB003 error: TORCHINDUCTOR_SIZE_ASSERTS is not "
            "read as "
            "registry.yaml:90 records under `sites`: no longer read at "
            "vendored/testing/inductor_utils.py (in patch_size_asserts): no default, off by "
            "default, only unsetting turns it off.",
            id="a-recorded-site-that-is-gone",
        ),
    ],
)
def test_sites_that_drift_from_the_record_fail(
    tmp_path: Path, drift: Callable[[Path], None], finding: str
) -> None:
    root = adopted(tmp_path)
    drift(root)
    result = run_knobs("check", cwd=root)
    lines = [line for line in result.stdout.splitlines() if ": KNB003 " in line]
    assert (result.returncode, lines) == (1, [finding])


def test_a_new_site_that_reads_it_a_recorded_way_in_a_recorded_scope_passes(
    tmp_path: Path,
) -> None:
    root = adopted(tmp_path)
    config = root / "vendored/inductor/config.py"
    text = config.read_text(encoding="utf-8")
    again = 'again = os.environ.get("TORCHINDUCTOR_SIZE_ASSERTS", "1") == "1"\n'
    config.write_text(text + again, encoding="utf-8")
    result = run_knobs("check", cwd=root)
    assert (result.returncode, result.stdout.splitlines()[-1]) == (
        0,
        "Found 2 notes: 6 knobs in 5 files checked against registry.yaml (policy all).",
    )


def test_without_sites_the_conflict_fails_and_its_fix_shows_them(tmp_path: Path) -> None:
    root = adopted(tmp_path)
    registry = root / "registry.yaml"
    text = registry.read_text(encoding="utf-8")
    start = text.index("    # how each site reads it", text.index("TORCHINDUCTOR_SIZE_ASSERTS:"))
    end = text.index("\n\n", start)
    registry.write_text(text[:start] + text[end + 1 :], encoding="utf-8")
    result = run_knobs("check", cwd=root)
    assert result.returncode == 1
    assert (
        "vendored/inductor/config.py:4:16: KNB004 error: TORCHINDUCTOR_SIZE_ASSERTS is read with "
        "conflicting defaults: on by default at vendored/inductor/config.py:4 but off by "
        "default at vendored/testing/inductor_utils.py:5.\n"
        "    Make every site read it the same way (one helper function, or one module constant "
        "for the default), then run `knobs check` again. In code you do not own, accept the "
        "sites as they are: record how each reads it in registry.yaml under "
        "knobs.TORCHINDUCTOR_SIZE_ASSERTS, and the check holds the code to it:\n"
        "      sites:\n"
        '        - {path: "vendored/inductor/config.py", function: "<module>", default: "1", '
        'default_on: true, off_value: "0"}\n'
        '        - {path: "vendored/testing/inductor_utils.py", function: "patch_size_asserts", '
        "default: null, default_on: false, off_value: null}\n"
    ) in result.stdout


def test_a_site_record_missing_a_key_is_a_registry_error(tmp_path: Path) -> None:
    root = adopted(tmp_path)
    edit(
        root / "registry.yaml", '{path: "vendored/inductor/config.py", function: "<module>", ', "{"
    )
    result = run_knobs("check", cwd=root)
    assert result.returncode == 2
    assert "knobs.TORCHINDUCTOR_SIZE_ASSERTS.sites[0]" in result.stderr + result.stdout


def test_init_and_check_exclude_the_same_names() -> None:
    """One predicate, the schema's own pattern for a variable name."""
    schema = json.loads((REPO / "knobregistry/registry/schema.json").read_text(encoding="utf-8"))
    assert schema["$defs"]["envName"]["pattern"] == "^" + VARIABLE_NAME.pattern[:-2] + "$"
    assert [
        holds_name(n) for n in ("ProgramFiles(x86)", "MY-VAR", "1X", "_A1", "ProgramFiles")
    ] == [
        False,
        False,
        False,
        True,
        True,
    ]


INSTALL_SH = """\
#!/bin/bash
if [[ -z "${BASE_IMAGE:-}" ]]; then
    echo "usage: --base-image pytorch|ubuntu" >&2
    exit 1
fi
if [[ "$BASE_IMAGE" != "pytorch" && "$BASE_IMAGE" != "ubuntu" ]]; then
    exit 1
fi
if [[ "$BASE_IMAGE" == "ubuntu" ]]; then
    apt-get install -y python3
fi
"""


def test_reads_of_one_scope_with_and_without_a_default_are_recorded_in_order(
    tmp_path: Path,
) -> None:
    """A launcher script in the style of Megatron-LM's docker/common/install.sh: reads with
    no default beside one with a default, switches beside a value, in one scope. The records
    sort with `null` first (init used to fail, comparing None with a string)."""
    text = initialised(tmp_path, "docker", {"docker/install.sh": INSTALL_SH})
    assert (
        "    sites:\n"
        '      - {path: "docker/install.sh", function: "<script>", default: null, '
        'default_on: false, off_value: "0"}\n'
        '      - {path: "docker/install.sh", function: "<script>", default: null, '
        'default_on: true, off_value: "pytorch"}\n'
        '      - {path: "docker/install.sh", function: "<script>", default: null, '
        'default_on: true, off_value: "ubuntu"}\n'
        '      - {path: "docker/install.sh", function: "<script>", default: "", '
        "default_on: null}\n"
    ) in text
    check = run_knobs("check", cwd=tmp_path)
    assert (check.returncode, check.stdout.splitlines()[-1]) == (
        0,
        "Found 1 note: 1 knob in 1 file checked against registry.yaml (policy all).",
    )


BUILD_SH = """\
#!/bin/bash
if [[ "$CI_COMMIT_BRANCH" == "main" || "$CI_COMMIT_BRANCH" == "dev" ]]; then
    echo "--pull"
fi
"""

BUILD_YML = """\
test:build_image:
  stage: build
  script:
    - |
      if [[ "$CI_COMMIT_BRANCH" == "main" ]]; then
        docker push "${IMAGE}:${CI_COMMIT_BRANCH}"
      fi
"""


def test_a_launch_fact_tested_by_a_script_is_no_drift(tmp_path: Path) -> None:
    """CI_COMMIT_BRANCH, set by the CI (a launch fact, `default_on: null`), is tested like a
    switch by a build script, as in Megatron-LM's .gitlab/: no KNB003 for those sites."""
    files = {"ci/.gitlab/scripts/build.sh": BUILD_SH, "ci/.gitlab/stages/01.build.yml": BUILD_YML}
    text = initialised(tmp_path, "ci", files)
    assert (
        "  CI_COMMIT_BRANCH:\n"
        "    # a launch fact (set by the launcher, not a switch); read at "
        "ci/.gitlab/scripts/build.sh:2 and 3 more sites\n"
        "    default_on: null\n"
    ) in text
    check = run_knobs("check", cwd=tmp_path)
    codes = [line.split(" ")[1] for line in check.stdout.splitlines() if ": KNB" in line]
    assert (check.returncode, codes, check.stdout.splitlines()[-1]) == (
        0,
        ["KNB008"],  # registered undecided (its sites need different values): a note
        "Found 1 note: 2 knobs in 2 files checked against registry.yaml (policy all).",
    )
