# joseki-miner: `make mine` mines GAMES (default: the built-in demo collection).
# Every target is listed by `make help`.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
GAMES  ?=
CONFIG ?= configs/default.yaml
WORK   ?= data/interim
OUT    ?= data/processed
DEMO   := data/raw/demo
SET    ?=
JOSEKI  = $(BIN)/joseki
ARGS    = --config $(CONFIG) --work $(WORK) --out $(OUT) $(foreach s,$(SET),--set $(s))
# the games to mine: GAMES, or the demo collection
INPUT   = $(if $(strip $(GAMES)),$(GAMES),$(DEMO))

.DEFAULT_GOAL := help
.PHONY: help setup mine demo ingest extract build prune context emit report explore test lint bench quality scale crashtest clean

help: ## list the targets
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z]+):.*## /  make \1\t/' | expand -t 20

setup: $(VENV)/.installed ## create .venv, install the package, and Graphviz, chromium and cgoban where apt can
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[dev]"
	@# bytecode written once: where PYTHONDONTWRITEBYTECODE is set (containers) every process, the CLI's
	@# and each dask worker's, would compile the package again as it starts
	@$(BIN)/python -m compileall -q src pipeline >/dev/null
	@command -v dot >/dev/null 2>&1 || bash scripts/install-graphviz.sh || \
	  echo "note: Graphviz's dot is not installed; DOT files are written, SVG rendering is skipped"
	@bash scripts/install-browser.sh || \
	  echo "note: chromium and chromedriver are not installed; the report's browser tests are skipped"
	@bash scripts/install-viewers.sh || \
	  echo "note: cgoban, xvfb, xdotool, imagemagick or tesseract are not installed; the SGF viewer test is skipped"
	@touch $@

demo: $(DEMO)/planted.json ## write the demo collection (planted joseki + noise) to data/raw/demo
$(DEMO)/planted.json: src/joseki_miner/readers/demo.py | setup
	$(JOSEKI) demo --out $(DEMO)

mine: setup $(if $(strip $(GAMES)),,demo) ## mine GAMES=path... (default: the demo) -> data/processed
	$(JOSEKI) mine $(INPUT) $(ARGS)

ingest: setup $(if $(strip $(GAMES)),,demo) ## stage 1 only: read and validate the games
	$(JOSEKI) ingest $(INPUT) $(ARGS)
extract: setup ## stage 2 only: corner sequences in normal form
	$(JOSEKI) extract $(ARGS)
build: setup ## stage 3 only: count sequences into the trie (make prune publishes it)
	$(JOSEKI) build $(ARGS)
prune: setup ## stage 4, then context, emit and report: prune the trie again (e.g. SET=prune.min_count=150)
	$(JOSEKI) prune $(ARGS)
context: setup ## stage 5, then emit and report: each node's whole board and the board's kinds
	$(JOSEKI) context $(ARGS)
emit: setup ## stage 6, then report: write SGF, DOT (and SVG) of the pruned tree
	$(JOSEKI) emit $(ARGS)
report: setup ## stage 7 only: the joseki book in HTML -> OUT/report/index.html
	$(JOSEKI) report $(ARGS)

explore: setup ## serve OUT on a local page: every stored move on a board, filters at the click (Ctrl-C stops it)
	$(JOSEKI) explore --out $(OUT) --work $(WORK)

test: setup ## run the test suite
	$(BIN)/pytest -q

lint: setup ## the style (ruff), the runners' types (mypy), the package's layers (import-linter); the tests check all
	$(BIN)/ruff check src pipeline tests benchmarks
	$(BIN)/ruff format --check src pipeline tests benchmarks
	$(BIN)/python -m mypy
	$(BIN)/lint-imports

bench: setup ## measure throughput on ../shared/data -> benchmarks/RESULTS.md
	$(BIN)/python benchmarks/bench.py

DICTIONARY ?=
quality: setup ## is what the tree calls joseki joseki? named shapes, each collection, each option -> benchmarks/QUALITY.md
	$(BIN)/python benchmarks/quality.py $(foreach d,$(DICTIONARY),--dictionary $(d))

scale: setup ## trace the dask engine on ../shared/data once and copied 3 times: T1, T_inf, S, Brent's bounds, a model of 100 million games -> benchmarks/SCALE.md
	$(BIN)/python benchmarks/scale.py --run 1 3

crashtest: setup ## stop runs at 100+ moments (kill, Ctrl-C, --strict, full disk); the next run must equal a clean one
	$(BIN)/python tests/crashtest.py $(GAMES)

clean: ## remove stage outputs and the demo collection (never the venv)
	rm -rf $(WORK)/* $(OUT)/* $(DEMO)
	@touch $(WORK)/.gitkeep $(OUT)/.gitkeep
