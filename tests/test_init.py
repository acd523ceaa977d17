"""`knobs init`: a starting registry that loads, passes `knobs check`, and is never clobbered."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from knobregistry._io.atomic import write_atomic
from knobregistry.cli import main
from knobregistry.init import use_case as init_module
from knobregistry.init.starter import SCHEMA_COPY, schema_reference
from knobregistry.registry import Policy, Triage, load_registry
from knobregistry.registry.schema import schema_text
from tests.conftest import REPO, run_knobs, write_tree
from tests.sample_project import project

SCHEMA = REPO / "knobregistry" / "registry" / "schema.json"


def starter(tmp_path: Path) -> Path:
    """The sample project without its registry."""
    root = project(tmp_path)
    (root / "registry.yaml").unlink()
    return root


def _schema_line(folder: Path) -> str:
    """A project outside this repository gets a copy of the schema beside its registry,
    never a path into a virtual environment nor a URL nobody serves."""
    copy = folder / SCHEMA_COPY
    assert copy.read_text(encoding="utf-8") == schema_text()
    return f"# yaml-language-server: $schema={SCHEMA_COPY}\n"


SCHEMA_NOTE = (
    "Wrote registry.schema.json: the registry's JSON schema, which the first line of "
    "registry.yaml points editors at; commit it beside it.\n"
)


ROLES_NOTE = (
    "Roles proposed from the code: 1 feature, 1 value, 2 unknown; confirm each by writing "
    "`role: ROLE`.\n"
)

EXPECTED = """\
version: 1

# What `knobs check` scans. Policy `all`: every knob the scan finds must be
# registered; `default-on` would require only the knobs whose feature is on by
# default, and those whose gate the scan could not decide.
scan:
  paths:
    - "pkg"
  exclude:
    - "legacy/"
  policy: all

# 4 knobs found by the scan, 2 of them on by default.
knobs:
  PRIMUS_BLOCK:
    # a value knob (default "64"); read at pkg/model.py:8
    default: "64"
    default_on: null
    role:
      proposed: value
      reason: "not a switch: the code uses its value"
    triage: untriaged

  PRIMUS_FP8:
    # off by default ("1" turns it on); read at pkg/model.py:7
    default: "0"
    default_on: false
    polarity: enable
    off_value: "0"
    role:
      proposed: feature
      reason: "the name PRIMUS_FP8 says FP8 (what is computed or trained)"
    triage: untriaged

  PRIMUS_HC_TRITON:
    # on by default ("0" turns it off); read at pkg/model.py:5
    default: "1"
    default_on: true
    polarity: enable
    off_value: "0"
    role:
      proposed: unknown
      reason: "the name PRIMUS_HC_TRITON says TRITON, a hint of a kernel choice, but no code it reaches shows one: words alone are not evidence"
    triage: untriaged

  PRIMUS_ROPE_TRITON:
    # on by default ("0" turns it off); read at pkg/model.py:6
    default: "1"
    default_on: true
    polarity: enable
    off_value: "0"
    role:
      proposed: unknown
      reason: "the name PRIMUS_ROPE_TRITON says TRITON, a hint of a kernel choice, but no code it reaches shows one: words alone are not evidence"
    triage: untriaged

# Profiles: named recipes that `knobs export --profile NAME` writes as a file to
# source. `bitwise` turns off every kernel choice that is on by default (in its
# code, or where `launched_on` says the tree's launchers turn it on) and not
# triaged reproducible (nor exempt, a deliberate waiver) and every knob triaged
# breaks-bitwise, turns on the framework's deterministic mode, and sets the
# stack's determinism settings to their deterministic values. It touches no other
# role, and no knob whose gate is undecided or whose role is unknown: `knobs
# export` names those it left as the code has them. A knob registered later is
# covered too.
profiles:
  bitwise:
    description: Bit-for-bit reproducible runs; kernel choices off, the deterministic mode on.
    kind: bitwise
    select:
      - role: kernel
        default_on: true
        triage_not: [reproducible, exempt]
        set: "off"
      - triage: breaks-bitwise
        set: "off"
      - role: determinism
        set: "on"
      - role: stack
        set: deterministic
"""  # noqa: E501


def test_init_writes_a_registry_that_checks_clean(tmp_path: Path) -> None:
    root = starter(tmp_path)
    result = run_knobs("init", "pkg", "--exclude", "legacy/", cwd=root)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        "Wrote registry.yaml: 4 knobs (2 on by default), every one untriaged.\n"
        + SCHEMA_NOTE
        + ROLES_NOTE
        + "Next: say what each knob gates, triage it, and run `knobs check`.\n"
    )
    text = (root / "registry.yaml").read_text(encoding="utf-8")
    assert text.startswith(_schema_line(root) + "#\n# The knob registry of this project")
    assert text.endswith(EXPECTED)
    registry = load_registry(root / "registry.yaml")
    assert registry.scan.policy is Policy.ALL
    assert {e.triage for e in registry.knobs.values()} == {Triage.UNTRIAGED}
    check = run_knobs("check", cwd=root)
    assert (check.returncode, check.stdout) == (
        0,
        "No problems: 4 knobs in 3 files checked against registry.yaml (policy all).\n",
    )


def test_init_refuses_to_overwrite(tmp_path: Path) -> None:
    root = starter(tmp_path)
    (root / "registry.yaml").write_text("# mine\n", encoding="utf-8")
    result = run_knobs("init", "pkg", cwd=root)
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        "",
        "Error: registry.yaml already exists; pass --force to overwrite it, "
        "or --output PATH to write another file.\n",
    )
    assert (root / "registry.yaml").read_text(encoding="utf-8") == "# mine\n"
    forced = run_knobs("init", "pkg", "--force", cwd=root)
    assert forced.returncode == 0
    assert "PRIMUS_HC_TRITON:" in (root / "registry.yaml").read_text(encoding="utf-8")


def test_init_is_byte_identical_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    root = starter(tmp_path)
    run_knobs("init", "pkg", cwd=root)
    first = (root / "registry.yaml").read_bytes()
    run_knobs("init", "pkg", "--force", cwd=root)
    assert (root / "registry.yaml").read_bytes() == first
    assert sorted(p.name for p in root.iterdir()) == ["pkg", SCHEMA_COPY, "registry.yaml"]


def test_scope_is_relative_to_the_output_folder(tmp_path: Path) -> None:
    root = starter(tmp_path)
    (root / "conf").mkdir()
    result = run_knobs("init", "pkg", "-o", "conf/knobs.yaml", "-m", "PRIMUS_*_TRITON", cwd=root)
    assert result.stdout.splitlines()[0] == (
        "Wrote conf/knobs.yaml: 2 knobs (2 on by default), every one untriaged."
    )
    text = (root / "conf/knobs.yaml").read_text(encoding="utf-8")
    assert text.startswith(_schema_line(root / "conf"))
    assert '  paths:\n    - "../pkg"\n  match:\n    - "PRIMUS_*_TRITON"\n  policy: all\n' in text
    assert "read at ../pkg/model.py:5" in text
    check = run_knobs("check", "--registry", "conf/knobs.yaml", cwd=root)
    assert (check.returncode, check.stdout) == (
        0,
        "No problems: 2 knobs in 3 files checked against conf/knobs.yaml (policy all).\n",
    )


def test_conflicts_and_unresolved_reads_are_reported(tmp_path: Path) -> None:
    root = starter(tmp_path)
    (root / "pkg/other.py").write_text(
        'import os\n\nFAST = os.environ.get("PRIMUS_HC_TRITON", "0") == "1"\n'
        'for k in open("kinds"):\n    os.environ.get(f"PRIMUS_{k}")\n',
        encoding="utf-8",
    )
    result = run_knobs("init", cwd=root)
    assert result.stdout == (
        "Wrote registry.yaml: 4 knobs (2 on by default), every one untriaged.\n"
        + SCHEMA_NOTE
        + ROLES_NOTE
        + "Conflict in PRIMUS_HC_TRITON: on by default at pkg/model.py:5 but off by default at "
        "pkg/other.py:3; how each site reads it is recorded under `sites`, which `knobs check` "
        "holds the code to.\n"
        "Not registered: 1 dynamic read and 0 files that could not be scanned "
        "(`knobs check` lists them).\n"
        "Next: say what each knob gates, triage it, and run `knobs check`.\n"
    )
    text = (root / "registry.yaml").read_text(encoding="utf-8")
    assert (
        "  PRIMUS_HC_TRITON:\n"
        '    # on by default ("0" turns it off); read at pkg/model.py:5 and 1 more site\n'
        "    # conflict: on by default at pkg/model.py:5 but off by default at pkg/other.py:3\n"
        "    default_on: true\n"
        "    polarity: enable\n"
        '    off_value: "0"\n'
        "    role:\n"
        "      proposed: unknown\n"
        '      reason: "the name PRIMUS_HC_TRITON says TRITON'
        ", a hint of a kernel choice, but no code it reaches"
        ' shows one: words alone are not evidence"\n'
        "    triage: untriaged\n"
        "    # how each site reads it: `knobs check` fails when the code reads it otherwise\n"
        "    sites:\n"
        '      - {path: "pkg/model.py", function: "<module>", default: "1", default_on: true, '
        'off_value: "0"}\n'
        '      - {path: "pkg/other.py", function: "<module>", default: "0", default_on: false, '
        'off_value: "0"}\n'
    ) in text
    assert '    - "."\n' in text
    check = run_knobs("check", cwd=root)
    # The conflict is recorded (sites), so it passes; the dynamic read is a warning.
    assert check.returncode == 0
    assert [line.split(" ")[1] for line in check.stdout.splitlines() if ": KNB" in line] == [
        "KNB006",
    ]


def test_empty_tree_and_names_a_registry_cannot_hold(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src/odd.py").write_text(
        'import os\nA = os.environ.get("MY-VAR", "1") != "0"\nB = os.environ.get("ON")\n',
        encoding="utf-8",
    )
    result = run_knobs("init", "src", cwd=tmp_path)
    assert result.stdout.splitlines() == [
        "Wrote registry.yaml: 1 knob (0 on by default), every one untriaged.",
        SCHEMA_NOTE.rstrip("\n"),
        "Roles proposed from the code: 1 value; confirm each by writing `role: ROLE`.",
        "Next: say what each knob gates, triage it, and run `knobs check`.",
        "Excluded 1 name that no registry can hold (letters, digits and '_' only), which "
        "`knobs check` leaves out too: 'MY-VAR'.",
    ]
    text = (tmp_path / "registry.yaml").read_text(encoding="utf-8")
    assert '  "ON":\n' in text  # YAML would read a bare ON as true
    assert (
        '\n# Not registered, as no registry can hold the name: "MY-VAR".\n'
        "# `knobs check` leaves such names out too.\n"
    ) in text
    assert load_registry(tmp_path / "registry.yaml").knobs.keys() == {"ON"}
    checked = run_knobs("check", cwd=tmp_path)
    assert (checked.returncode, checked.stdout) == (
        0,
        "No problems: 2 knobs in 1 file checked against registry.yaml (policy all).\n",
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_knobs("init", cwd=empty).returncode == 0
    assert "\nknobs: {}\n" in (empty / "registry.yaml").read_text(encoding="utf-8")
    assert run_knobs("check", cwd=empty).returncode == 0


def test_missing_output_folder_exits_2(tmp_path: Path) -> None:
    result = run_knobs("init", "-o", "nope/registry.yaml", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        2,
        "Error: the folder nope does not exist; create it first.\n",
    )


def test_a_failed_write_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = starter(tmp_path)
    monkeypatch.chdir(root)

    def read_only(path: Path, text: str, *, follow: bool = True) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(init_module, "write_atomic", read_only)
    result = CliRunner().invoke(main, ["init", "pkg"])
    assert (result.exit_code, result.output) == (
        2,
        "Error: cannot write registry.yaml: Permission denied.\n",
    )
    assert not (root / "registry.yaml").exists()


def test_write_atomic_keeps_the_old_file_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "registry.yaml"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o640)

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", disk_full)
        with pytest.raises(OSError, match="No space left"):
            write_atomic(target, "new\n")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["registry.yaml"]
    write_atomic(target, "new\n")
    assert target.read_text(encoding="utf-8") == "new\n"
    assert target.stat().st_mode & 0o777 == 0o640


def test_schema_reference_is_repository_relative_when_vendored() -> None:
    """Inside the repository that holds the schema, a path relative to the registry."""
    for folder in (REPO, REPO / "examples"):
        reference = schema_reference(folder)
        assert reference is not None and not reference.startswith(("/", "file:"))
        assert (folder / reference).resolve() == SCHEMA.resolve()


def test_outside_it_the_registry_gets_a_copy_of_the_schema(tmp_path: Path) -> None:
    """Anywhere else (a project with knobregistry installed in its venv), no reference to
    the installation: init writes the schema beside the registry, for every teammate."""
    (tmp_path / ".git").mkdir()
    assert schema_reference(tmp_path) is None
    (tmp_path / "src").mkdir()
    (tmp_path / "src/m.py").write_text('import os\nos.environ.get("A_KNOB")\n', encoding="utf-8")
    result = run_knobs("init", "src", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    text = (tmp_path / "registry.yaml").read_text(encoding="utf-8")
    assert text.startswith(_schema_line(tmp_path))


def test_a_default_the_registry_cannot_hold_is_left_out(tmp_path: Path) -> None:
    # A lone surrogate is a Python string, but no registry holds one (issue 18): init
    # registers the knob without that default, and the registry it writes loads.
    source = 'import os\nX = os.environ.get("SUR_DEF", "\\ud800") == "1"\n'
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(source, encoding="utf-8")
    result = run_knobs("init", "pkg", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    registry = load_registry(tmp_path / "registry.yaml")
    entry = registry.knobs["SUR_DEF"]
    assert (entry.default, entry.default_on, entry.off_value) == (None, False, "0")
    check = run_knobs("check", cwd=tmp_path)
    assert (check.returncode, check.stdout) == (
        0,
        "No problems: 1 knob in 1 file checked against registry.yaml (policy all).\n",
    )


def test_a_file_nested_too_deep_is_counted_and_the_rest_registered(tmp_path: Path) -> None:
    # libcst would crash the process on it (issue 18): init registers the other files'
    # knobs and counts the file it could not scan.
    deep = "(" * 1500 + 'os.environ.get("DEEP")' + ")" * 1500
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "deep.py").write_text(f"import os\nx = {deep}\n", encoding="utf-8")
    (tmp_path / "pkg" / "ok.py").write_text(
        'import os\nY = os.environ.get("OK_X", "1") != "0"\n', encoding="utf-8"
    )
    result = run_knobs("init", "pkg", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        "Wrote registry.yaml: 1 knob (1 on by default), every one untriaged.\n"
        + SCHEMA_NOTE
        + "Roles proposed from the code: 1 unknown; confirm each by writing `role: ROLE`.\n"
        + "Not registered: 0 dynamic reads and 1 file that could not be scanned "
        "(`knobs check` lists them).\n"
        "Next: say what each knob gates, triage it, and run `knobs check`.\n"
    )
    assert list(load_registry(tmp_path / "registry.yaml").knobs) == ["OK_X"]


def test_a_knob_read_at_one_site_is_no_conflict_between_sites(tmp_path: Path) -> None:
    """One read whose unset state the code decides (a tri-state table) and a size made a
    number, tested and returned (Liger-Kernel 0.8.5's ASCEND_UB_CAPACITY_BITS, one site):
    neither is a conflict between sites, nor undecided."""
    (tmp_path / "m.py").write_text(
        "import os\n\n\n"
        "def fused():\n"
        '    return {"1": True, "0": False}.get(os.environ.get("TRI_FUSED", ""))\n\n\n'
        "def capacity():\n"
        '    bits = os.getenv("UB_CAPACITY_BITS")\n'
        "    if bits is not None:\n"
        "        if int(bits) > 0:\n"
        "            return int(bits)\n"
        '    raise RuntimeError("set UB_CAPACITY_BITS")\n',
        encoding="utf-8",
    )
    result = run_knobs("init", cwd=tmp_path)
    assert result.stdout == (
        "Wrote registry.yaml: 2 knobs (0 on by default), every one untriaged.\n"
        + SCHEMA_NOTE
        + "Roles proposed from the code: 2 value; confirm each by writing `role: ROLE`.\n"
        "Next: say what each knob gates, triage it, and run `knobs check`.\n"
    )
    text = (tmp_path / "registry.yaml").read_text(encoding="utf-8")
    assert "undecided:" not in text and "sites:" not in text
    assert run_knobs("check", cwd=tmp_path).returncode == 0


def test_one_default_read_on_at_one_switch_and_off_at_another_checks_clean(
    tmp_path: Path,
) -> None:
    # Primus fd1eeab: primus/pretrain.py:27 reads PRIMUS_LOG_LEVEL's "INFO" as on
    # (`in ("DEBUG", "INFO")`), runner/lib/common.sh:93 as off (`== "DEBUG"`).
    root = write_tree(
        tmp_path,
        {
            "pkg/pretrain.py": """
                import os


                def info_enabled():
                    return os.environ.get("X_LOG_LEVEL", "INFO").upper() in ("DEBUG", "INFO")
                """,
            "pkg/common.sh": """
                #!/bin/bash
                export X_LOG_LEVEL="${X_LOG_LEVEL:-INFO}"
                if [[ "$X_LOG_LEVEL" == "DEBUG" ]]; then
                    echo debug
                fi
                """,
        },
    )
    assert run_knobs("init", "pkg", cwd=root).returncode == 0
    text = (root / "registry.yaml").read_text(encoding="utf-8")
    assert (
        '      - {path: "pkg/common.sh", function: "<script>", default: "INFO", '
        'default_on: false, off_value: "0"}\n' in text
    )
    check = run_knobs("check", cwd=root)
    assert (check.returncode, check.stdout) == (
        0,
        "No problems: 1 knob in 2 files checked against registry.yaml (policy all).\n",
    )


def test_a_template_launcher_is_left_out_of_the_scope_it_writes(tmp_path: Path) -> None:
    """OpenRLHF 3c3be62 examples/scripts/train_ppo_ray_slurm.sh:15 is a template
    (``OPENRLHF_PATH=<OPENRLHF_ROOT_PATH>``): bash cannot run it as it stands. Right after
    `knobs init`, check and export must tell the same story, so init leaves it out of the
    scope with the reason, and says so; a script that does not parse otherwise stays in."""
    root = starter(tmp_path)
    write_tree(
        root,
        {
            "scripts/slurm.sh": "#!/bin/bash\necho start\nOPENRLHF_PATH=<OPENRLHF_ROOT_PATH>\n",
            "scripts/run.sh": "#!/bin/bash\nexport PRIMUS_HC_TRITON=1\n",
        },
    )
    cache = tmp_path / "cache"
    for _ in range(2):  # cold, then from the cache
        result = run_knobs("init", "--force", cwd=root, env={"KNOBS_CACHE_DIR": str(cache)})
        assert result.returncode == 0, result.stderr
        assert (
            "Left out of the scan: 1 launcher with placeholders to fill in, which bash cannot run "
            "as they stand: scripts/slurm.sh (`scan.exclude` in the registry says why; remove "
            "one there once it is filled in).\n"
        ) in result.stdout
        assert "could not be scanned" not in result.stdout
        text = (root / "registry.yaml").read_text(encoding="utf-8")
        assert (
            "  exclude:\n"
            "    # Left out by `knobs init`: <OPENRLHF_ROOT_PATH> near line 3 is a placeholder "
            "to fill\n"
            "    # in, not bash; once the script is filled in, remove it here so that `knobs "
            "check`\n"
            "    # reads it.\n"
            '    - "scripts/slurm.sh"\n'
            "  policy: all\n"
        ) in text
    check = run_knobs("check", cwd=root)
    assert check.returncode == 0, check.stdout
    assert "KNB007" not in check.stdout
    export = run_knobs("export", "--profile", "bitwise", cwd=root)
    assert export.returncode == 0, export.stderr


def test_a_default_written_over_several_lines_stays_in_its_comment(tmp_path: Path) -> None:
    # NovaSky-AI/SkyRL a9564572 examples/train/amd/run_tinker_server_amd.sh:78-95: a default
    # computed by a heredoc spans 18 lines; written raw into the entry's one-line comment,
    # its lines 2.. landed in registry.yaml as bare YAML, and no command could load it.
    launcher = (
        'COLOCATE_ALL="${COLOCATE_ALL:-true}"\n'
        'BACKEND_CONFIG="${BACKEND_CONFIG:-$(cat <<JSON\n'
        "{\n"
        '    "trainer.placement.colocate_all": ${COLOCATE_ALL},\n'
        "    key: [1, 2]\n"
        "}\n"
        "JSON\n"
        ')}"\n'
        'python -m serve --backend-config "${BACKEND_CONFIG}"\n'
    )
    write_tree(tmp_path, {"launch/run.sh": launcher})
    result = run_knobs("init", "launch", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    text = (tmp_path / "registry.yaml").read_text(encoding="utf-8")
    entry = text[text.index("  BACKEND_CONFIG:") :].split("\n\n")[0]
    assert entry.splitlines()[1] == (
        "    # a value knob (default computed when it runs: $(cat <<JSON\\n{\\n"
        '    "trainer.placement.colocate_all": ${COLOCATE_ALL},\\n    key: [1, 2]\\n}\\nJSON\\n)); '
        "read at launch/run.sh:2 and 1 more site"
    )
    assert set(load_registry(tmp_path / "registry.yaml").knobs) == {
        "BACKEND_CONFIG",
        "COLOCATE_ALL",
    }
    check = run_knobs("check", cwd=tmp_path)
    assert (check.returncode, check.stdout) == (
        0,
        "No problems: 2 knobs in 1 file checked against registry.yaml (policy all).\n",
    )
    export = run_knobs("export", "--profile", "bitwise", cwd=tmp_path)
    assert export.returncode == 0, export.stderr
