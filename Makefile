# toolcall — set-up, demo and tests. `make demo` and `make test` work on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO := fixtures/incidents/flooding-model-loop

.PHONY: setup tshark chromium demo test lint-code check bench bench-scale fuzz man clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

setup: $(STAMP) tshark chromium

# pcap input needs Wireshark's tshark (driven through pyshark). Installed with apt-get when it is
# missing and we may (root, or CI); otherwise say how.
tshark:
	@if command -v tshark >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing tshark with apt-get"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark >/dev/null; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then \
	  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark >/dev/null; \
	else \
	  echo "note: tshark is not installed; pcap input needs it (apt-get install tshark)"; \
	  if [ "$$CI" = "true" ]; then exit 1; fi; \
	fi

# The HTML report's browser test drives Debian's headless chromium; installed the same way.
chromium:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing chromium with apt-get"; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	  { echo "error: could not install chromium"; if [ "$$CI" = "true" ]; then exit 1; fi; }; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then \
	  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
	  echo "note: chromium is not installed; the HTML browser test needs it (apt-get install chromium)"; \
	  if [ "$$CI" = "true" ]; then exit 1; fi; \
	fi

demo: $(STAMP) tshark
	@echo "\$$ toolcall diagnose $(DEMO)"
	@$(BIN)/toolcall diagnose $(DEMO) --fail-on never
	@echo
	@echo "\$$ toolcall timeline $(DEMO) --limit 1"
	@$(BIN)/toolcall timeline $(DEMO) --limit 1

lint-code: setup
	$(BIN)/ruff check toolcall_cli tests
	$(BIN)/ruff format --check toolcall_cli tests
	$(BIN)/mypy

test: setup lint-code
	$(BIN)/python -m pytest -q -p no:cacheprovider

check: test

bench: setup
	$(BIN)/python tests/bench/run_bench.py

# ~10 M seeded events through ingest, diagnose and query within a 4 GiB peak (not part of test)
bench-scale: setup
	$(BIN)/python tests/bench/scale/run_scale.py

fuzz: setup
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/fuzz --fuzz-long

man: setup
	$(BIN)/python -m toolcall_cli.cli._manpage man

clean:
	rm -rf $(VENV) .toolcall .pytest_cache .mypy_cache .ruff_cache
