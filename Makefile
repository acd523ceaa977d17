# Two entry points: `make demo` and `make test`. Both build their own
# virtual environment in .venv from this repository alone.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt

.PHONY: demo test lint typecheck unit docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.core: $(BIN)/python pyproject.toml constraints.txt
	$(PIP) -e .
	touch $@

$(VENV)/.dev: $(VENV)/.core
	$(PIP) -e '.[dev,megatron,examples,torchtitan]'
	touch $@

$(VENV)/.examples: $(VENV)/.core
	$(PIP) -e '.[examples]'
	touch $@

# The demo scans the example, checks it against its registry, then triages two of
# its knobs; triage exits 1 because it finds the one that breaks reproducibility.
demo: $(VENV)/.examples
	$(BIN)/knobs scan examples/
	cd examples && ../$(BIN)/knobs check
	cd examples && { ../$(BIN)/knobs triage --knob TOY_FUSED_LINEAR_CE --knob TOY_ROPE_TRITON \
	    --jobs 2 --compare tensors:params.pt -- ../$(BIN)/python train.py --steps 5 \
	    --save-tensors params.pt; test $$? -eq 1; }

lint: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.dev
	$(BIN)/mypy --strict

unit: $(VENV)/.dev
	$(BIN)/python -m pytest

test: lint typecheck unit

# The user guide as a site that opens from disk: site/index.html.
docs: $(VENV)/.dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis site
