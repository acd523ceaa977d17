"""`knobs check`: every rule, the engine that runs them on one scan, and their families.

The use case returns data (``run.CheckResult``); reporters render it, and only the CLI
turns it into an exit code. The package's own module imports nothing, so that a command
that needs one rule's declaration (`knobs rule`) loads no engine.
"""
