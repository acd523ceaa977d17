"""The rules of `knobs check`, one module per rule (or per small family of rules that one
check reports): each declares its `Rule` (code, name, severity, summary, family, example,
fix, docs page, and the projects its tests run) beside the code that reports it.

knobregistry.check.codes indexes every `Rule` these modules declare. A rule module imports
at its top only what declaring needs (the engine's types, the examples' projects), and the
rest inside its check, so that `knobs rule` loads no engine. `python -m
knobregistry.check.scaffold` writes a new rule's module and its test.
"""
