# gatecrawl: the two commands are `make demo` and `make test`; both set everything up.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt requirements-dev.txt | sha256sum | cut -c1-12)

.PHONY: setup system-deps demo test test-fast bench clean

setup: system-deps $(STAMP)

system-deps:
	@bash scripts/system-deps.sh

$(STAMP): requirements.txt requirements-dev.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@# A fresh venv's pip 23 leaves out lxml_html_clean; upgrade pip first.
	$(PY) -m pip install -q --disable-pip-version-check -U pip
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

demo: setup
	$(PY) -m gatecrawl.demo.run --output ./output

test: setup
	$(PY) -m pytest -q

test-fast: setup
	$(PY) -m pytest -q -m "not slow"

bench: setup
	$(PY) -m bench.extraction
	$(PY) -m bench.determinism

clean:
	rm -rf output .pytest_cache
