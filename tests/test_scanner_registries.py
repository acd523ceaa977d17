"""Registries: a class whose attributes are descriptors declares variables, and code
elsewhere reads and writes them through the class or an instance of it (sglang's
``class Envs: SGLANG_X = EnvBool(True)`` and ``envs.SGLANG_X.get()``). The forms with
positions are in tests/data/forms (set-name-descriptor-registry); these are the writes,
the prefixes, the aliases, the cache, and what stays dynamic, never dropped."""

from __future__ import annotations

from pathlib import Path

from scanner import DynamicRead, ReadKind, WriteKind, scan
from tests.conftest import write_tree

ENVIRON = """
import os


class EnvField:
    def __init__(self, default):
        self.default = default

    def __set_name__(self, owner, name):
        self.name = {prefix}name

    def get(self):
        value = os.getenv(self.name)
        if value is None:
            return self.default
        return self.parse(value)

    def set(self, value):
        os.environ[self.name] = str(value)

    def clear(self):
        os.environ.pop(self.name, None)

    def override(self, value):
        backup = os.environ.get(self.name)
        self.set(value)
        yield
        os.environ[self.name] = backup


class EnvBool(EnvField):
    def parse(self, value):
        return value.lower() in ("1", "true")


class Envs:
    FUSED_MOE = EnvBool({default})
    VERSION = "1"

    def describe(self):
        return "envs"


envs = Envs()
"""


def _tree(root: Path, use: str, *, prefix: str = "", default: str = "True") -> Path:
    return write_tree(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/environ.py": ENVIRON.format(prefix=prefix, default=default),
            "pkg/use.py": use,
        },
    )


def test_set_clear_and_override_through_a_field_are_writes(tmp_path: Path) -> None:
    use = """
    from pkg.environ import envs


    def prepare():
        envs.FUSED_MOE.set(False)
        envs.FUSED_MOE.clear()
        with envs.FUSED_MOE.override(True):
            pass
    """
    result = scan([_tree(tmp_path, use)], root=tmp_path)
    writes = [(w.path, w.line, w.column, w.name, w.kind, w.value, w.via) for w in result.writes]
    assert writes == [
        ("pkg/use.py", 5, 5, "FUSED_MOE", WriteKind.SET, "False", "pkg.environ.envs"),
        ("pkg/use.py", 6, 5, "FUSED_MOE", WriteKind.POP, None, "pkg.environ.envs"),
        ("pkg/use.py", 7, 10, "FUSED_MOE", WriteKind.SET, "True", "pkg.environ.envs"),
    ]
    # The descriptor's own writes by self.name are its uses' writes, not writes of their own.
    assert [w.path for w in result.writes if w.name is None] == []
    assert [s.path for k in result.knobs for s in k.sites] == ["pkg/environ.py"]


def test_set_name_may_add_a_prefix_to_the_attribute(tmp_path: Path) -> None:
    use = "from pkg.environ import envs\n\nON = envs.FUSED_MOE.get()\n"
    result = scan([_tree(tmp_path, use, prefix='"PRIMUS_" + ')], root=tmp_path)
    sites = [(k.name, s.path, s.kind, s.default) for k in result.knobs for s in k.sites]
    assert sites == [
        ("PRIMUS_FUSED_MOE", "pkg/environ.py", ReadKind.DESCRIPTOR, "True"),
        ("PRIMUS_FUSED_MOE", "pkg/use.py", ReadKind.FIELD, "True"),
    ]


def test_a_field_read_through_an_alias_of_the_instance(tmp_path: Path) -> None:
    use = "from pkg.environ import envs as _envs\n\nON = _envs.FUSED_MOE.get()\n"
    result = scan([_tree(tmp_path, use)], root=tmp_path)
    uses = [(s.line, s.column, s.via) for k in result.knobs for s in k.sites if s.path != ENV]
    assert uses == [(3, 6, "pkg.environ.envs")]


ENV = "pkg/environ.py"


def test_a_descriptor_built_outside_a_class_body_is_a_dynamic_read(tmp_path: Path) -> None:
    use = "from pkg.environ import EnvBool\n\nFLAG = EnvBool(True)\n"
    result = scan([_tree(tmp_path, use)], root=tmp_path)
    assert result.dynamic == (
        DynamicRead(
            path="pkg/use.py",
            line=3,
            column=8,
            expression="EnvBool(True)",
            function="<module>",
            reason=(
                "EnvBool() takes its name from the attribute it is assigned to in a class "
                "body, and this call is not one"
            ),
            via="pkg.environ.EnvBool",
        ),
    )


def test_an_attribute_the_registry_does_not_declare_is_a_dynamic_read(tmp_path: Path) -> None:
    use = """
    from pkg.environ import envs

    A = envs.FUSED_MOE.get()
    B = envs.VERSION.upper()
    C = envs.TYPO_MOE.get()
    """
    result = scan([_tree(tmp_path, use)], root=tmp_path)
    assert [(d.line, d.expression, d.reason) for d in result.dynamic] == [
        (
            5,
            "envs.TYPO_MOE.get()",
            "TYPO_MOE is no field of Envs (pkg/environ.py:35) whose variable the scan could read",
        )
    ]


def test_a_cached_use_follows_a_changed_declaration(tmp_path: Path) -> None:
    use = "from pkg.environ import envs\n\nif envs.FUSED_MOE.get():\n    import fused\n"
    root, cache = _tree(tmp_path / "t", use), tmp_path / "cache"
    first = scan([root], root=root, cache_dir=cache)
    assert [(s.path, s.default_on) for k in first.knobs for s in k.sites] == [
        (ENV, True),
        ("pkg/use.py", True),
    ]
    _tree(root, use, default="False")
    second = scan([root], root=root, cache_dir=cache)
    assert [(s.path, s.default_on) for k in second.knobs for s in k.sites] == [
        (ENV, False),
        ("pkg/use.py", False),
    ]


def test_a_registry_of_descriptors_named_by_their_argument(tmp_path: Path) -> None:
    # sglang 0.5.23, sglang/srt/lora/trtllm_lora_temp/environ.py:33 and :58: _GatedBool
    # keeps the name it is given; lora_envs.X.get() reads it (14 files import lora_envs).
    write_tree(
        tmp_path,
        {
            "lora/__init__.py": "",
            "lora/environ.py": """
            import os


            class _GatedBool:
                def __init__(self, name, default):
                    self._name = name
                    self._default = default

                def get(self):
                    raw = os.environ.get(self._name)
                    if raw is None:
                        return self._default
                    return raw.strip().lower() in {"1", "true", "yes", "on"}


            class _LoraEnvs:
                SGLANG_OPT_LORA_FUSED_TOPK_PACK = _GatedBool(
                    "SGLANG_OPT_LORA_FUSED_TOPK_PACK", True
                )


            lora_envs = _LoraEnvs()
            """,
            "lora/layer.py": """
            from lora.environ import lora_envs


            def pack():
                return lora_envs.SGLANG_OPT_LORA_FUSED_TOPK_PACK.get()
            """,
        },
    )
    result = scan([tmp_path], root=tmp_path)
    sites = [(s.path, s.line, s.kind, s.default_on) for k in result.knobs for s in k.sites]
    assert sites == [
        ("lora/environ.py", 17, ReadKind.DESCRIPTOR, True),
        ("lora/layer.py", 5, ReadKind.FIELD, True),
    ]


def test_a_get_that_copies_a_renamed_variable_is_a_read_of_both(tmp_path: Path) -> None:
    # sglang 0.5.23, sglang/srt/environ.py:161 (_DeprecatedEnvFallback): get() copies the
    # old name's value to the new name when only the old one is set, then reads the new.
    write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/environ.py": """
            import os


            class EnvField:
                def __init__(self, default):
                    self.default = default

                def __set_name__(self, owner, name):
                    self.name = name

                def get(self):
                    value = os.getenv(self.name)
                    return self.default if value is None else value == "1"


            class EnvBoolWithAlias(EnvField):
                def __init__(self, default, deprecated_name):
                    super().__init__(default)
                    self.deprecated_name = deprecated_name

                def get(self):
                    if os.getenv(self.name) is None:
                        fallback = os.getenv(self.deprecated_name)
                        if fallback is not None:
                            os.environ[self.name] = fallback
                    return super().get()


            class Envs:
                NEW_FLAG = EnvBoolWithAlias(True, deprecated_name="OLD_FLAG")


            envs = Envs()


            def here():
                return envs.NEW_FLAG.get()
            """,
            "pkg/use.py": "from pkg.environ import envs\n\nON = envs.NEW_FLAG.get()\n",
        },
    )
    result = scan([tmp_path], root=tmp_path)
    sites = sorted((k.name, s.path, s.line, s.kind) for k in result.knobs for s in k.sites)
    assert sites == [
        ("NEW_FLAG", "pkg/environ.py", 30, ReadKind.DESCRIPTOR),
        ("NEW_FLAG", "pkg/environ.py", 37, ReadKind.FIELD),
        ("NEW_FLAG", "pkg/use.py", 3, ReadKind.FIELD),
        ("OLD_FLAG", "pkg/environ.py", 30, ReadKind.DESCRIPTOR),
        ("OLD_FLAG", "pkg/environ.py", 37, ReadKind.FIELD),
        ("OLD_FLAG", "pkg/use.py", 3, ReadKind.FIELD),
    ]
    assert result.dynamic == () and [w.name for w in result.writes] == []
