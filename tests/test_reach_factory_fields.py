"""A settings dataclass whose field's default factory reads the environment: the values the
factory's call lists are probed, and the field is followed to the tests of its reads as an
attribute of an instance, wherever the instance goes, and on to what each side runs.

The tree is a small copy, on disk, of the real code named above it (pytorch/helion
ef091f416a50c443b38e4c8bff2980777f5ff225); it is scanned, and the decision at the read, the
branches the field's test decides (file, line, column) and the role are checked."""

from __future__ import annotations

from pathlib import Path

from scanner import Polarity, Role, scan
from scanner.model import DecisionKind, GateKind
from scanner.reach.branches import branches
from scanner.reach.carriers import Carriers, carried_names
from scanner.reach.modules import Tree
from tests.conftest import write_tree
from tests.scanned import role_facts, scanned_knob

# helion/runtime/settings.py:125-142 (_env_get_literal), :546-553 (the field whose default
# factory is a functools.partial of it, with typing.cast around the default and the value),
# :447-459 (another, whose table maps "0" and "" to None).
SETTINGS = """\
import dataclasses
import functools
import os
from typing import Literal, TypeVar, cast

_T = TypeVar("_T")
AutotuneEffort = Literal["none", "quick", "full"]


def _env_get_literal(
    var_name: str,
    default: _T,
    *,
    mapping: dict[str, object],
) -> _T:
    value = os.environ.get(var_name)
    if value is None:
        return default
    value = value.strip()
    if value in mapping:
        return cast("_T", mapping[value])
    if value == "":
        return default
    raise ValueError(f"{var_name} must be one of {', '.join(sorted(mapping))}, got {value!r}")


@dataclasses.dataclass
class _Settings:
    autotune_effort: AutotuneEffort = dataclasses.field(
        default_factory=functools.partial(
            _env_get_literal,
            "PKG_AUTOTUNE_EFFORT",
            cast("AutotuneEffort", "full"),
            mapping={key: key for key in ("none", "quick", "full")},
        )
    )
    autotune_precompile: str | None = dataclasses.field(
        default_factory=functools.partial(
            _env_get_literal,
            "PKG_AUTOTUNE_PRECOMPILE",
            cast("PrecompileMode", "fork"),
            mapping={
                "spawn": "spawn",
                "fork": "fork",
                "": None,
                "0": None,
            },
        )
    )


class Settings(_Settings):
    def __init__(self, **settings: object) -> None:
        super().__init__(**settings)
"""

# helion/_compiler/backend.py:1127-1171 (Backend.autotune: "none" takes the default config,
# else a search times candidate configs). Reduced: the else side builds the search class
# default_autotuner_fn builds (runtime/settings.py:278, :301, LFBOTreeSearch) in place of
# calling the field that holds that function, and the search times each config with
# triton.testing.do_bench, as autotuner/aot_cache.py:1081-1083 does.
BACKEND = """\
from pkg.autotuner.search import LFBOTreeSearch


class Backend:
    def autotune(self, bound_kernel, args, *, force=True):
        force = force or bound_kernel.settings.force_autotune
        if bound_kernel.settings.autotune_effort == "none" and (
            force or not bound_kernel.kernel.configs
        ):
            config = bound_kernel.config_spec.default_config()
        elif not force and bound_kernel.kernel.configs:
            (config,) = bound_kernel.kernel.configs
        else:
            config = LFBOTreeSearch(bound_kernel, args).autotune()
        return config
"""

SEARCH = """\
import triton


class LFBOTreeSearch:
    def __init__(self, bound_kernel, args):
        self.bound_kernel = bound_kernel
        self.args = args

    def autotune(self):
        timings = [triton.testing.do_bench(fn) for fn in self.bound_kernel.candidates()]
        return min(range(len(timings)), key=timings.__getitem__)
"""

TREE = {
    "pkg/__init__.py": "",
    "pkg/runtime/__init__.py": "",
    "pkg/runtime/settings.py": SETTINGS,
    "pkg/compiler/__init__.py": "",
    "pkg/compiler/backend.py": BACKEND,
    "pkg/autotuner/__init__.py": "",
    "pkg/autotuner/search.py": SEARCH,
}

NAME = "PKG_AUTOTUNE_EFFORT"


def _site_and_branches(root: Path) -> tuple[tuple[str, int, int], list[tuple[str, int, int, bool]]]:
    """The site's place, and each branch the field's value decides: its file, the line
    and column of its test, and the side."""
    knob = scan([root], root=root, jobs=1).knob(NAME)
    assert knob is not None
    (site,) = knob.sites
    files = {
        p.relative_to(root).as_posix(): (p, p.relative_to(root).with_suffix("").as_posix())
        for p in root.rglob("*.py")
    }
    tree = Tree({rel: (path, dotted.replace("/", ".")) for rel, (path, dotted) in files.items()})
    carriers = Carriers(tree)
    module = tree.module_name_at(site.path)
    assert module is not None
    carriers.want(carried_names(site, module))
    found = [
        (b.module.rel, b.test.lineno, b.test.col_offset + 1, b.holds)
        for b in branches(site, tree, carriers)
    ]
    return (site.path, site.line, site.column), found


def test_the_values_a_wrappers_call_lists_are_probed(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, TREE, NAME)
    (site,) = knob.sites
    (read,) = [d for d in site.decisions if d.kind is DecisionKind.READ]
    assert (read.line, read.column) == (30, 25)
    assert dict(read.outcomes) == {
        None: "full",
        "": "full",
        "none": "none",
        "quick": "quick",
        "full": "full",
    }


def test_a_field_whose_default_factory_reads_is_followed_to_its_tests(tmp_path: Path) -> None:
    write_tree(tmp_path, TREE)
    site, found = _site_and_branches(tmp_path)
    assert site == ("pkg/runtime/settings.py", 30, 25)
    assert found == [
        ("pkg/compiler/backend.py", 7, 12, True),
        ("pkg/compiler/backend.py", 7, 12, False),
    ]


AUTOTUNED = (
    "unset, it runs the branch of `not (bound_kernel.settings.autotune_effort == 'none' and "
    "(forc...)` at pkg/compiler/backend.py:7, which reaches calls LFBOTreeSearch.autotune "
    "(pkg/autotuner/search.py:9) -> triton.testing.do_bench at pkg/autotuner/search.py:10; "
    "PKG_AUTOTUNE_EFFORT='none' leaves that branch, and what runs instead reaches no such "
    "kernel"
)


def test_the_value_that_leaves_the_autotuned_side_is_the_recipes(tmp_path: Path) -> None:
    knob = scanned_knob(tmp_path, TREE, NAME)
    assert role_facts(knob) == (Role.KERNEL, Polarity.ENABLE, "none", AUTOTUNED)


def test_a_table_that_maps_values_to_none_keeps_a_value_a_value(tmp_path: Path) -> None:
    """Unset "fork", "spawn" itself, "0" and "" None, any other value raises: the code uses
    the value, which is no presence switch."""
    knob = scanned_knob(tmp_path, TREE, "PKG_AUTOTUNE_PRECOMPILE")
    (site,) = knob.sites
    assert (site.line, site.column, site.gate.kind, site.default) == (
        38,
        25,
        GateKind.VALUE,
        "fork",
    )
