# lmcache 0.5.6, lmcache/v1/config_base.py:218 and :260: a factory that builds a config
# class from a table of definitions, whose classmethod reads a variable per key of the
# table and of the alias table, the name built by a nested helper from a prefix
# parameter.
import os
from dataclasses import make_dataclass


def to_bool(value):
    return str(value).strip().lower() in ["true", "1"]


def create_config_class(name, definitions, aliases=None, env_prefix="TOY_"):
    aliases = aliases or {}

    def _from_env(cls):
        def env_name_of(attr: str) -> str:
            return f"{env_prefix}{attr.upper()}"

        keys = list(definitions.keys()) + list(aliases.keys())
        found = {}
        for key in keys:
            env_name = env_name_of(key)
            value = os.getenv(env_name)
            if value is not None:
                found[aliases.get(key, key)] = definitions[aliases.get(key, key)]["env_converter"](value)
        return cls(**found)

    fields = [(k, d["type"], d["default"]) for k, d in definitions.items()]
    made = make_dataclass(name, fields)
    made.from_env = classmethod(_from_env)
    return made
