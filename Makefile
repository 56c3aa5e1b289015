# The two commands of the README: `make demo` and `make test`. Each sets everything up on a
# fresh machine (a virtual environment with the package and its test extras) before it runs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.installed-docs
DEMO   := demo-output
ADULT  := src/incrowd/datasets/adult

.PHONY: demo test lint docs bench performance clean ui

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,report,dask,ui]'
	$(BIN)/incrowd precompile
	touch $(STAMP)

demo: $(STAMP)
	@mkdir -p $(DEMO)
	@# the schema (columns, hierarchies) is the job file; the follow-ups read it from the
	@# release's metadata
	$(BIN)/incrowd anonymize --config $(ADULT)/incrowd.toml --k 5 --seed 1 \
	    --out $(DEMO)/adult-k5.csv
	$(BIN)/incrowd verify $(DEMO)/adult-k5.csv
	$(BIN)/incrowd evaluate $(ADULT)/adult.csv $(DEMO)/adult-k5.csv
	$(BIN)/incrowd risk $(ADULT)/adult.csv $(DEMO)/adult-k5.csv
	$(BIN)/incrowd report $(ADULT)/adult.csv $(DEMO)/adult-k5.csv --out $(DEMO)/adult-k5-report.html

test: $(STAMP)
	$(BIN)/ruff check src tests benchmarks experiments
	@# pytest exits 5 when it collects no tests: say so instead of failing the build
	$(BIN)/python -m pytest -n 2 -q --durations=30; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "pytest collected no tests"; exit 0; fi; exit $$rc

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks experiments

# The documentation site (docs/, mkdocs.yml) into site/; --strict turns every warning into an
# error. Its tools come with the `docs` extra, installed only for this target.
$(DOCS_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# the local browser app on the demo data (src/incrowd/datasets, read-only) and demo-output/
ui: $(STAMP)
	@mkdir -p $(DEMO)
	$(BIN)/incrowd ui --folder $(DEMO)

bench: $(STAMP)
	$(BIN)/python benchmarks/mdav.py

# docs/performance.md rendered from the benchmarks' JSON (benchmarks/results/); runs no
# benchmark: rerun a script in benchmarks/ first to refresh its figures.
performance: $(STAMP)
	$(BIN)/python benchmarks/make_performance_page.py

clean:
	rm -rf $(VENV) $(DEMO) site .pytest_cache .hypothesis test-output
