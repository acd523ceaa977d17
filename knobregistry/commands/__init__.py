"""One module per `knobs` subcommand; `knobregistry.cli` assembles them."""
