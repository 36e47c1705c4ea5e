# capicu: `make run` serves a demo on SQLite; `make test` runs the whole suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.capicu-installed
HOST ?= 127.0.0.1:8000

.PHONY: run test lint format install clean messages bench-live wheel-check

# The stamp is written only after a complete install, so an interrupted install is
# simply redone on the next call.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_demo --if-empty --base-url http://$(HOST)
	$(BIN)/python manage.py runserver $(HOST)

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python manage.py makemigrations --check --dry-run

# The wheel as a user would install it: built, installed into a fresh virtual environment,
# then manage.py check and migrate run from the installed copy (.ci/wheel_check).
wheel-check: $(STAMP)
	.ci/wheel_check

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Re-extract translatable strings into locale/es (needs GNU gettext), then compile the
# catalogue with polib (pure Python) after the new entries are translated.
messages: $(STAMP)
	$(BIN)/python manage.py makemessages -l es --no-location --ignore ".venv/*" \
		--ignore "tests/*" --ignore "bench/*" --ignore "staticfiles/*" --ignore "test-output/*"
	$(BIN)/python -c "import polib; polib.pofile('locale/es/LC_MESSAGES/django.po').save_as_mofile('locale/es/LC_MESSAGES/django.mo')"

# The production stack on this machine (deploy/serve.py, the Procfile under honcho):
# needs DATABASE_URL, REDIS_URL, SECRET_KEY and ALLOWED_HOSTS; one Ctrl-C stops it all.
.PHONY: serve
serve: $(STAMP)
	$(BIN)/python deploy/serve.py

# The live-load benchmark starts its own database, Redis, gunicorn and Celery; it prints
# its figures against issue 14's targets. BENCH_ARGS=--quick for a shorter run.
bench-live: $(STAMP)
	$(BIN)/python bench/live_load.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache db.sqlite3
