"""`python -m knobregistry` runs the `knobs` command line."""

from knobregistry.cli import main

main()
