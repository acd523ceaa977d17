# Two entry points: `make demo` and `make test`. Both build their own
# virtual environment in .venv from this repository alone.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt --no-compile
# pip compiles each file it installs to bytecode, one after another (about 60 of the 120 s
# the test tools and extras take); this compiles the venv on every core instead. Files
# that are not Python 3 (templates some packages ship) do not compile and are skipped,
# as pip skips them, so the status is not checked.
COMPILE = $(BIN)/python -c 'import compileall, sys; compileall.compile_dir(sys.argv[1], quiet=2, workers=0)' $(VENV)/lib

.PHONY: demo test test-fast lint typecheck bytecode unit docs dist clean catalogue-table

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.core: $(BIN)/python pyproject.toml constraints.txt
	@echo "Installing knobregistry and its core dependencies into $(VENV) ..."
	$(PIP) -e .
	$(COMPILE)
	touch $@

$(VENV)/.dev: $(BIN)/python pyproject.toml constraints.txt
	@echo "Installing knobregistry, the test tools and the extras (torch, triton, megatron-core, ...) into $(VENV): about a minute the first time ..."
	$(PIP) -e '.[dev,megatron,examples,torchtitan]'
	$(COMPILE)
	touch $@

$(VENV)/.examples: $(BIN)/python pyproject.toml constraints.txt
	@echo "Installing knobregistry and the example's dependencies (torch, triton, numpy) into $(VENV): about half a minute the first time ..."
	$(PIP) -e '.[examples]'
	$(COMPILE)
	touch $@

# The demo: demo.sh, with the virtual environment's bin first on PATH as after
# `. .venv/bin/activate`, so that each step it shows is what you would type (it says what
# it runs, and what to do next).
demo: $(VENV)/.examples
	@PATH="$(CURDIR)/$(BIN):$$PATH" VIRTUAL_ENV="$(CURDIR)/$(VENV)" sh demo.sh

lint: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.dev
	$(BIN)/mypy --strict

# Tests run on every core (pytest-xdist); a worker that finishes early steals
# tests from the other, so the slowest ones do not end the run alone. Most tests start
# `knobs` in a subprocess: where the environment says not to write bytecode
# (PYTHONDONTWRITEBYTECODE), each would compile the package again, so knobregistry and
# scanner are compiled once first (bytecode), into their __pycache__ (which git
# ignores), as pip compiled the installed packages.
PYTEST := $(BIN)/python -m pytest -n auto --dist worksteal

bytecode: $(VENV)/.dev
	$(BIN)/python -m compileall -q knobregistry scanner

unit: bytecode
	$(PYTEST)

test: lint typecheck unit

# The inner loop: every test but those marked slow (the example's training runs,
# Slurm jobs, megatron-core), without lint and typecheck.
test-fast: bytecode
	$(PYTEST) -m 'not slow'

# scanner/stack_settings.py, the settings the scanner knows by name, generated from the
# catalogue's data (knobregistry/catalogue/data/*.yaml, their `scanner:` blocks); a test
# fails while they differ.
catalogue-table: $(VENV)/.core
	$(BIN)/python -m knobregistry.catalogue.scanner_table

# The user guide as a site that opens from disk: site/index.html.
docs: $(VENV)/.dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The sdist and the wheel, in dist/ (`pip install dist/knobregistry-*.whl` installs the
# wheel). Built with the setuptools of .venv, offline: no isolated build environment.
# A wheel holds no bytecode either way; with PYTHONDONTWRITEBYTECODE set, setuptools
# warns twice that it skips the compiling it was not going to do, so it is unset here.
dist: $(VENV)/.core
	$(PIP) 'setuptools>=77'
	rm -rf dist build knobregistry.egg-info
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -c 'from setuptools import build_meta as b; b.build_sdist("dist"); b.build_wheel("dist")' >/dev/null
	rm -rf build knobregistry.egg-info  # setuptools' leftovers: a stale egg-info names old entry points
	@ls dist

clean:
	rm -rf $(VENV) dist build knobregistry.egg-info .mypy_cache .ruff_cache .pytest_cache .hypothesis site
