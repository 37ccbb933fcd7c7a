# toolcall — set-up, demo and tests. `make demo` and `make test` work on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO := fixtures/incidents/flooding-model-loop

# mitmproxy's flow reader on Python 3.11 (see the mitm extra in pyproject.toml): mitmproxy 11.0.2
# and what its reader imports, installed without mitmproxy's exact pins.
MITM_PY311 := mitmproxy==11.0.2 mitmproxy_rs==0.10.7 'pyOpenSSL>=24.3,<27' pyparsing==3.2.0 \
	wsproto==1.2.0 'h11>=0.16,<1'

.PHONY: setup tshark chromium mitm phoenix shells goaccess demo test lint-code check bench bench-targets bench-scale bench-scaling fuzz man clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,mitm,mcp,dask]'
	@touch $(STAMP)

setup: $(STAMP) mitm tshark chromium shells phoenix

# .mitm input (toolcall[mitm]); on Python 3.12+ the extra above already installed mitmproxy 12.
mitm: $(STAMP)
	@if ! $(BIN)/python -c 'import mitmproxy.io' 2>/dev/null; then \
	  if $(BIN)/python -c 'import sys; sys.exit(sys.version_info >= (3, 12))'; then \
	    echo "installing mitmproxy's flow reader (Python 3.11)"; \
	    $(BIN)/python -m pip install --quiet --no-deps $(MITM_PY311); \
	  fi; \
	fi

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

# `--otlp-endpoint` is tested against a real OTLP consumer: Arize Phoenix, in its own venv (its
# dependencies are not toolcall's). tests/render/test_otlp_phoenix.py runs `.phoenix/bin/phoenix`.
PHOENIX := .phoenix
phoenix:
	@test -x $(PHOENIX)/bin/phoenix || { $(PYTHON) -m venv $(PHOENIX) && \
	  $(PHOENIX)/bin/python -m pip install --quiet 'arize-phoenix==20.26.1'; } || \
	  { echo "note: could not install arize-phoenix; the Phoenix round-trip test needs it"; \
	    if [ "$$CI" = "true" ]; then exit 1; fi; }

# The shell-completion test runs the real bash, zsh and fish; zsh and fish come from apt-get.
shells:
	@if command -v zsh >/dev/null 2>&1 && command -v fish >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing zsh and fish with apt-get"; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zsh fish >/dev/null 2>&1 || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zsh fish >/dev/null; } || \
	  { echo "error: could not install zsh and fish"; if [ "$$CI" = "true" ]; then exit 1; fi; }; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then \
	  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zsh fish >/dev/null; \
	else \
	  echo "note: zsh/fish are not installed; the completion test needs them (apt-get install zsh fish)"; \
	  if [ "$$CI" = "true" ]; then exit 1; fi; \
	fi

demo: $(STAMP) tshark
	@echo "\$$ toolcall diagnose $(DEMO)"
	@$(BIN)/toolcall diagnose $(DEMO) --fail-on never
	@echo
	@echo "\$$ toolcall timeline $(DEMO) --limit 1"
	@$(BIN)/toolcall timeline $(DEMO) --limit 1

lint-code: setup
	$(BIN)/ruff check toolcall_cli tests bench
	$(BIN)/ruff format --check toolcall_cli tests bench
	$(BIN)/mypy

# byte-compiled first, as an installed copy is: this machine's shell sets
# PYTHONDONTWRITEBYTECODE, so every `toolcall` child a test starts would recompile each module
# it imports. One pytest-xdist worker per core (TEST_WORKERS=0 runs in one process); a test
# file stays on one worker, so a module's costly fixture (a generated store) is built once.
TEST_WORKERS ?= auto
test: setup lint-code
	$(BIN)/python -m compileall -q toolcall_cli >/dev/null
	$(BIN)/python -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadfile --durations=15

check: test

# The whole-process nginx figure is measured against GoAccess; installed like tshark.
goaccess:
	@if command -v goaccess >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing goaccess with apt-get"; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq goaccess >/dev/null 2>&1 || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq goaccess >/dev/null; }; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then \
	  sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq goaccess >/dev/null; \
	else \
	  echo "note: goaccess is not installed; the nginx GoAccess figure is reported as missing"; \
	fi

bench: setup goaccess
	$(BIN)/python bench/run_bench.py

# the figures with a target that are not unit tests: a 10,000-file store diagnosed, 50,000 events
# aligned, BFCL's 4,178-tool file linted (bench/targets.py; not part of test)
bench-targets: setup
	$(BIN)/python bench/targets.py

# ~10 M seeded events through ingest, diagnose and query within a 4 GiB peak (not part of test)
bench-scale: setup
	$(BIN)/python bench/scale/run_scale.py

# the Dask scaling paragraph alone (1 and 2 LocalCluster workers): a 2 M-event scale bundle,
# or a copy of an existing store with SCALING_STORE=DIR; rewrites only that paragraph of bench/README.md
bench-scaling: setup
	$(BIN)/python bench/scale/run_scale.py --scaling-only \
		$(if $(SCALING_STORE),--scaling-store $(SCALING_STORE),--scaling-events 2000000)

fuzz: setup
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/fuzz --fuzz-long

man: setup
	$(BIN)/python -m toolcall_cli.cli._manpage man

clean:
	rm -rf $(VENV) .toolcall .pytest_cache .mypy_cache .ruff_cache
