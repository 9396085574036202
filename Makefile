# llmcost: `make run` sets up .venv and runs a default job; `make test` runs ruff and pytest.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[dev,plot]'
	@$(BIN)/python -m compileall -q llmcost > /dev/null  # the first command starts from bytecode
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/llmcost search train llama-3.1-70b --hw h100-sxm --gpus 64 --global-batch 512 --seq-len 8192 --tokens 15T --top 10

test: $(STAMP)
	$(BIN)/ruff check llmcost tests bench
	$(BIN)/ruff format --check llmcost tests bench
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check llmcost tests bench
	$(BIN)/ruff format --check llmcost tests bench

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache
