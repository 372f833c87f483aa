# Two entry points for a fresh machine: `make demo` runs jurist's main job, `make test` runs
# every test. Each installs what it needs (uv, then the locked environment).
PYTHON ?= python3
# uv from PATH when there is one; otherwise uv in a virtual environment of its own, made from
# $(PYTHON). Never in $(PYTHON) itself (a distribution's Python refuses pip, PEP 668) nor in
# the project's .venv (uv sync removes what the lock does not hold).
TOOLS := $(CURDIR)/.tools
UV := $(or $(shell command -v uv 2>/dev/null),$(TOOLS)/bin/uv)
export UV_PYTHON_DOWNLOADS := never
# Every extra a command of the README needs, so that each works after `make demo`; the
# small embedded models stay out (they judge near chance and are for tests).
DEMO_EXTRAS := --extra local --extra calibration --extra server --extra embeddings \
	--extra dataframes --extra postgres --extra openai --extra anthropic --extra cluster \
	--extra litellm --extra otel --extra viewer
EXAMPLE_CHECK := --schema examples/answer.schema.json --contains refund --contains '30 days'
# Where wheel-check builds the wheel and the clean environment it installs it into.
WHEEL_CHECK := $(CURDIR)/build/wheel-check

.PHONY: demo test lint uv postgres chromium wheel-check screenshots

uv:
	@$(UV) --version >/dev/null 2>&1 || { \
		echo "== no uv on PATH: installing it into $(TOOLS) (a virtual environment of its own)"; \
		$(PYTHON) -m venv "$(TOOLS)" || { echo "$(PYTHON) cannot make a virtual environment:" \
			"install uv (https://docs.astral.sh/uv/) or your system's venv package" \
			"(Debian, Ubuntu: apt install python3-venv)" >&2; exit 1; }; \
		"$(TOOLS)/bin/python" -m pip install --quiet --disable-pip-version-check uv && \
		"$(UV)" --version; }

demo: uv
	@$(UV) sync --frozen --no-default-groups $(DEMO_EXTRAS) --inexact --quiet
	@echo "== jurist models prepare   (assemble and verify the embedded judge model, once)"
	@$(UV) run --frozen --no-default-groups --inexact jurist models prepare
	@echo "== jurist check examples/good-answer.json $(EXAMPLE_CHECK)"
	@$(UV) run --frozen --no-default-groups --inexact jurist check examples/good-answer.json $(EXAMPLE_CHECK)
	@echo; echo "== jurist check examples/bad-answer.json $(EXAMPLE_CHECK)   (exit 1: FAIL)"
	@$(UV) run --frozen --no-default-groups --inexact jurist check examples/bad-answer.json $(EXAMPLE_CHECK) || [ $$? -eq 1 ]
	@echo; echo "== jurist kb add examples/handbook --collection handbook   (the trusted sources)"
	@$(UV) run --frozen --no-default-groups --inexact jurist kb add examples/handbook --collection handbook
	@echo; echo "== jurist validate examples/validation-request.json   (all five layers, the embedded model, ~1-2 min; exit 1: INVALID)"
	@$(UV) run --frozen --no-default-groups --inexact jurist validate examples/validation-request.json || [ $$? -eq 1 ]

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

test: lint postgres chromium wheel-check
	$(UV) run --frozen pytest

# The viewer's pages as its browser tests see them, written where the docs show them.
screenshots: chromium
	JURIST_SCREENSHOTS=docs/images/viewer $(UV) run --frozen pytest -q -p no:cacheprovider tests/viewer

# The wheel as a user gets it: built, installed with pip alone (no uv, no lock, no extras) into
# a clean virtual environment, and run.
wheel-check: uv
	@rm -rf "$(WHEEL_CHECK)"
	$(UV) build --wheel --out-dir "$(WHEEL_CHECK)/dist" --quiet
	$(UV) venv --seed --quiet "$(WHEEL_CHECK)/venv"
	"$(WHEEL_CHECK)/venv/bin/python" -m pip install --quiet --disable-pip-version-check \
		"$(WHEEL_CHECK)"/dist/jurist-*.whl
	"$(WHEEL_CHECK)/venv/bin/jurist" --version
	"$(WHEEL_CHECK)/venv/bin/jurist" check examples/good-answer.json $(EXAMPLE_CHECK)
	@echo "== pytest examples/pytest   (the pytest plugin, from the wheel; one judged test fails: exit 1)"
	"$(WHEEL_CHECK)/venv/bin/python" -m pip install --quiet --disable-pip-version-check pytest
	@cp -r examples/pytest "$(WHEEL_CHECK)/user" && printf '[pytest]\n' > "$(WHEEL_CHECK)/user/pytest.ini"
	@cd "$(WHEEL_CHECK)/user" && { ../venv/bin/python -m pytest -p no:cacheprovider > pytest.out 2>&1; \
		status=$$?; cat pytest.out; [ $$status -eq 1 ] && grep -q "1 failed, 5 passed" pytest.out && \
		grep -qF "jurist: judge 'criterion': FAIL, score no" pytest.out && \
		grep -qF "  reasoning: It never says how long a refund can be asked for." pytest.out && \
		grep -qF "5 judgments in 5 tests: 4 pass, 1 fail" pytest.out; } || \
		{ echo "wheel-check: the plugin's run of examples/pytest is not what it should be" >&2; exit 1; }
