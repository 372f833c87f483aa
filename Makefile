# Two entry points for a fresh machine: `make demo` runs jurist's main job, `make test` runs
# every test. Each installs what it needs (uv from PyPI, then the locked environment).
PYTHON ?= python3
UV := $(PYTHON) -m uv
export UV_PYTHON_DOWNLOADS := never
# Every extra a command of the README needs, so that each works after `make demo`; the
# small embedded models stay out (they judge near chance and are for tests).
DEMO_EXTRAS := --extra local --extra calibration --extra server --extra embeddings \
	--extra dataframes --extra postgres --extra openai --extra anthropic
EXAMPLE_CHECK := --schema examples/answer.schema.json --contains refund --contains '30 days'

.PHONY: demo test lint uv postgres chromium

uv:
	@$(PYTHON) -m uv --version >/dev/null 2>&1 || $(PYTHON) -m pip install --quiet uv

demo: uv
	@$(UV) sync --frozen --no-dev $(DEMO_EXTRAS) --inexact --quiet
	@echo "== jurist models prepare   (assemble and verify the embedded judge model, once)"
	@$(UV) run --frozen --no-dev --inexact jurist models prepare
	@echo "== jurist check examples/good-answer.json $(EXAMPLE_CHECK)"
	@$(UV) run --frozen --no-dev --inexact jurist check examples/good-answer.json $(EXAMPLE_CHECK)
	@echo; echo "== jurist check examples/bad-answer.json $(EXAMPLE_CHECK)   (exit 1: FAIL)"
	@$(UV) run --frozen --no-dev --inexact jurist check examples/bad-answer.json $(EXAMPLE_CHECK) || [ $$? -eq 1 ]
	@echo; echo "== jurist kb add examples/handbook --collection handbook   (the trusted sources)"
	@$(UV) run --frozen --no-dev --inexact jurist kb add examples/handbook --collection handbook
	@echo; echo "== jurist validate examples/validation-request.json   (all five layers, the embedded model, ~1-2 min; exit 1: INVALID)"
	@$(UV) run --frozen --no-dev --inexact jurist validate examples/validation-request.json || [ $$? -eq 1 ]

lint: uv
	$(UV) sync --frozen --all-extras --quiet
	$(UV) run --frozen ruff check src tests bench
	$(UV) run --frozen ruff format --check src tests bench
	$(UV) run --frozen mypy
	$(UV) run --frozen lint-imports

# The store's tests start their own throwaway PostgreSQL server; they need its binaries.
postgres:
	@ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || command -v pg_ctl >/dev/null 2>&1 || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null)

# The offline API pages are checked in a real headless browser: the system's Chromium.
chromium:
	@command -v chromium >/dev/null 2>&1 || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)

test: lint postgres chromium
	$(UV) run --frozen pytest
