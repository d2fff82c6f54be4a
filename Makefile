# The two commands: `make demo` (the main job) and `make test`. Both set themselves up.
VENV ?= .venv
export VENV

.PHONY: demo demo-quick test setup bench clean
setup:
	@bash scripts/setup.sh

demo: setup
	$(VENV)/bin/s2r demo

demo-quick: setup
	$(VENV)/bin/s2r demo --quick

test: setup
	$(VENV)/bin/python -m pytest -q $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
