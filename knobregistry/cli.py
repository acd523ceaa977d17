"""The `knobs` command line: the only place that turns results into exit codes.

Subcommands are imported when they run, so `knobs scan` does not pay for the
registry, its schema validator and the rest (``click`` documents this pattern as
lazily loading subcommands).
"""

from __future__ import annotations

import importlib

import click

from knobregistry import __version__

# name -> "module:attribute" of the click command. A new subcommand is one line here.
COMMANDS = {
    "scan": "knobregistry.commands.scan:scan_command",
    "check": "knobregistry.commands.check:check_command",
    "init": "knobregistry.commands.init:init_command",
    "explain": "knobregistry.commands.explain:explain_command",
    "rule": "knobregistry.commands.rule:rule_command",
    "export": "knobregistry.commands.export:export_command",
    "triage": "knobregistry.commands.triage:triage_command",
    "fingerprint": "knobregistry.commands.fingerprint:fingerprint_command",
    "diff": "knobregistry.commands.diff:diff_command",
    "docs": "knobregistry.commands.docs:docs_command",
    "trace": "knobregistry.commands.trace:trace_command",
    "catalogue": "knobregistry.commands.catalogue:catalogue_command",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def __init__(self, *args: object, lazy: dict[str, str], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = self.lazy.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module, _, attribute = target.partition(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """As click resolves it; a mistyped name fails with the command it most likely
        meant (`knobs scna`: scan)."""
        name = args[0] if args else ""
        known = self.list_commands(ctx)
        if name and not name.startswith("-") and name not in known and not ctx.resilient_parsing:
            from knobregistry._text.suggest import closest

            close = closest(name, known)
            hint = f" Did you mean {close!r}?" if close is not None else ""
            ctx.fail(f"No such command {name!r}.{hint}")
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each command with the first sentence of its help, wrapped, never cut with '...'."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.short_help or first_sentence(command.help or "")))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def first_sentence(text: str) -> str:
    """The first sentence of a docstring's first paragraph, on one line."""
    import inspect  # only for the command list of --help (it imports ast and tokenize)

    paragraph = " ".join(inspect.cleandoc(text).split("\n\n")[0].split())
    end = paragraph.find(". ")
    return paragraph if end < 0 else paragraph[: end + 1]


@click.group(
    cls=LazyGroup,
    lazy=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, prog_name="knobs")
def main() -> None:
    """Find, register and pin the environment knobs that gate fused kernels.

    Tables and reports fit the terminal's width; piped or redirected, COLUMNS when
    it is set to a positive number, else 100 columns.
    """
