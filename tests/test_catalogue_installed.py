"""`knobs catalogue --installed`: the variable names the installed libraries' shared objects
contain, with the library's prefix, that the catalogue has not reviewed. Real ELF files
written here (ELF64 and ELF32, both byte orders), a distribution installed on PYTHONPATH
that ships one, and the installed torch CPU build."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from knobregistry.catalogue.elf_strings import NotElf, read_only_data, variable_names
from tests.conftest import run_knobs, write_tree

RODATA = (
    b"\0NCCL_ALGO\0NCCL_NEW_KNOB\0set NCCL_PROTO=Simple to pin it\0XNCCL_NOT_A_NAME\0"
    b"NCCL_\0NCCL_Lowercase\0NCCL_TUNER_PLUGIN\0"
)
TEXT = b"NCCL_IN_CODE_NOT_DATA\0"  # a name outside .rodata: not read when .rodata exists


def elf(rodata: bytes, *, wide: bool = True, order: str = "<", headers: bool = True) -> bytes:
    """A minimal relocatable ELF file: a .text, a .rodata and the section-name table."""
    names = b"\0.text\0.rodata\0.shstrtab\0"
    header_size, entry = (64, 64) if wide else (52, 40)
    text_at = header_size
    rodata_at = text_at + len(TEXT)
    names_at = rodata_at + len(rodata)
    table_at = names_at + len(names)
    layout = order + ("IIQQQQIIQQ" if wide else "IIIIIIIIII")
    sections = [
        struct.pack(layout, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        struct.pack(layout, 1, 1, 6, 0, text_at, len(TEXT), 0, 0, 1, 0),
        struct.pack(layout, 7, 1, 2, 0, rodata_at, len(rodata), 0, 0, 1, 0),
        struct.pack(layout, 15, 3, 0, 0, names_at, len(names), 0, 0, 1, 0),
    ]
    ident = b"\x7fELF" + bytes([2 if wide else 1, 1 if order == "<" else 2, 1]) + bytes(9)
    fields = order + ("HHIQQQIHHHHHH" if wide else "HHIIIIIHHHHHH")
    shoff = table_at if headers else 0
    header = ident + struct.pack(
        fields, 3, 62, 1, 0, 0, shoff, 0, header_size, 0, 0, entry, len(sections), 3
    )
    return header + TEXT + rodata + names + b"".join(sections)


@pytest.mark.parametrize(("wide", "order"), [(True, "<"), (True, ">"), (False, "<"), (False, ">")])
def test_the_read_only_data_of_an_elf_file(tmp_path: Path, wide: bool, order: str) -> None:
    path = tmp_path / "libx.so"
    path.write_bytes(elf(RODATA, wide=wide, order=order))
    assert read_only_data(path) == RODATA


def test_without_section_headers_the_whole_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "libx.so"
    path.write_bytes(elf(RODATA, headers=False))
    data = read_only_data(path)
    assert data == path.read_bytes()
    assert "NCCL_IN_CODE_NOT_DATA" in variable_names(data, ["NCCL_"])


def test_a_file_that_is_not_elf(tmp_path: Path) -> None:
    path = tmp_path / "libx.so"
    path.write_text("INPUT(libx.so.1)\n", encoding="utf-8")  # a linker script
    with pytest.raises(NotElf):
        read_only_data(path)


def test_names_start_at_a_word_boundary_and_are_whole() -> None:
    assert variable_names(RODATA, ["NCCL_"]) == {
        "NCCL_ALGO",
        "NCCL_NEW_KNOB",
        "NCCL_PROTO",
        "NCCL_TUNER_PLUGIN",
    }
    assert variable_names(b"\0PYTORCH_X\0TORCH_Y\0", ["TORCH_", "PYTORCH_"]) == {
        "PYTORCH_X",
        "TORCH_Y",
    }


def _distribution(root: Path) -> Path:
    """A site folder holding nvidia-nccl-cu12 with one shared object, as pip installs it."""
    site = root / "site"
    library = "nvidia/nccl/lib/libnccl.so.2"
    record = f"{library},,\nnvidia_nccl_cu12-2.99.1.dist-info/METADATA,,\n"
    write_tree(
        site,
        {
            "nvidia_nccl_cu12-2.99.1.dist-info/METADATA": (
                "Metadata-Version: 2.1\nName: nvidia-nccl-cu12\nVersion: 2.99.1\n"
            ),
            "nvidia_nccl_cu12-2.99.1.dist-info/RECORD": record,
        },
    )
    (site / library).parent.mkdir(parents=True)
    (site / library).write_bytes(elf(RODATA))
    return site


def test_the_unreviewed_names_of_an_installed_library(tmp_path: Path) -> None:
    site = _distribution(tmp_path)
    env = {"PYTHONPATH": str(site)}
    done = run_knobs("catalogue", "nccl", "--installed", cwd=tmp_path, env=env)
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == (
        "NCCL (nvidia-nccl-cu12 2.99.1): 1 shared object, 4 names starting NCCL_, 1 not "
        "reviewed:\n"
        "  NCCL_NEW_KNOB  nvidia/nccl/lib/libnccl.so.2\n"
        "Review each name (what it changes, with a source) and add it to the library's file in "
        "knobregistry/catalogue/data/: under `settings:` when a recipe must set or unset it, "
        "under `reviewed:` with why when it need not.\n"
    )


def test_a_library_that_is_not_installed(tmp_path: Path) -> None:
    done = run_knobs("catalogue", "rccl", "--installed", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "Not installed here: RCCL.\n", "")


def test_the_installed_torch_cpu_build(tmp_path: Path) -> None:
    # Its speed: benchmarks/catalogue_installed_bench.py.
    done = run_knobs("catalogue", "torch", "--installed", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("torch (torch 2.")
    assert "names starting TORCH_ or PYTORCH_" in lines[0]
    listed = {line.split()[0] for line in lines[1:] if line.startswith("  ")}
    assert {"PYTORCH_TENSOREXPR", "TORCH_MKLDNN_MATMUL_MIN_DIM"} <= listed
    # catalogued as settings or reviewed: never listed
    assert not listed & {"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "TORCH_CUDNN_V8_API_DISABLED"}
