PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SHELL := /bin/bash

# Two workers: the machines this runs on have two cores. The per-test timeout stops a hung test
# (a child that never answers) with a traceback instead of hanging the run.
PYTEST_WORKERS ?= 2
PYTEST_TIMEOUT ?= 300
# PYTEST_ARGS: extra pytest options for one run (.ci/run passes -rs, so CI logs say why each test skipped).
PYTEST_ARGS ?=
# Bytecode is cached even where the environment sets PYTHONDONTWRITEBYTECODE: without it every
# worker re-rewrites the asserts of every test module (about 13 s of each collection here).
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --timeout=$(PYTEST_TIMEOUT) $(PYTEST_ARGS)

.PHONY: run check test lint typecheck fmt snapshots bench gpu-check install clean

$(BIN)/python:
	@echo "posenc: creating $(VENV) with $(PYTHON)"
	$(PYTHON) -m venv $(VENV)

# Re-install only when the project metadata or the pins change. pip's full output goes to
# .venv/pip-install.log; the console gets one line per step (the first install downloads torch,
# a few minutes), and the log's tail if pip fails.
$(STAMP): pyproject.toml constraints.txt | $(BIN)/python
	@echo "posenc: installing posenc and its pinned dependencies (log: $(VENV)/pip-install.log)"
	@$(BIN)/python -m pip install --progress-bar off -c constraints.txt -e '.[test]' 2>&1 \
	  | tee $(VENV)/pip-install.log \
	  | grep --line-buffered -E '^(Collecting|Downloading|Installing|Successfully|ERROR)'; \
	  status=$${PIPESTATUS[0]}; \
	  if [ "$$status" -ne 0 ]; then tail -n 40 $(VENV)/pip-install.log; exit "$$status"; fi
	@touch $(STAMP)
	@echo "posenc: installed"

install: $(STAMP)

run: $(STAMP)
	$(BIN)/posenc

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# Static types: mypy, configured in pyproject.toml ([tool.mypy]): posenc_ref and quizbank strictly, tui in
# a basic mode. Under a minute from cold on two cores; seconds with its cache (.mypy_cache).
typecheck: $(STAMP)
	$(BIN)/mypy

# Format and apply ruff's safe fixes (then look at the diff).
fmt: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Re-record the screenshots after an intended change to what a screen shows (then look at the SVG diff):
# every test file that uses snap_compare, whole (the other tests in those files run too).
snapshots: $(STAMP)
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --timeout=$(PYTEST_TIMEOUT) \
	  --snapshot-update $$(grep -rl --include='test_*.py' snap_compare tests)

# The fast loop: lint, types and every test not marked slow (no subprocess suites, browser, exhaustive key walks),
# with one of each of those kept in on purpose: a seeded key burst (test_key_bursts_stress.py), a real
# `posenc serve` (test_serve.py) and a confined grade (test_drills_containment.py). Meant to take <= 5 min.
check: lint typecheck
	$(PYTEST) -m "not slow"

# The full loop, as CI runs it (.ci/run): lint, types and every test.
test: lint typecheck
	$(PYTEST)

# The GPU check: CUDA tests, numpy-vs-torch oracles, every demo and bench/rope.py on the GPU
# (on the CPU where there is no CUDA). It needs only Python, numpy and torch: on a GPU machine run
# `python3 bench/gpu_check.py` from the source tree with nothing installed (8 minutes at most there;
# CPU runs get a larger budget).
GPU_CHECK_BUDGET ?= 900
gpu-check: $(STAMP)
	$(BIN)/python bench/gpu_check.py --budget $(GPU_CHECK_BUDGET)

bench: $(STAMP)
	MALLOC_MMAP_THRESHOLD_=17179869184 MALLOC_TRIM_THRESHOLD_=17179869184 $(BIN)/python bench/rope.py
	$(BIN)/python bench/bank_load.py
	$(BIN)/python bench/startup.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
