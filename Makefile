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

# three workers, whole files each: most tests wait on a browser page, a phone or a subprocess,
# so three files in flight keep two cores busy (each worker has its own Chromium and private adb
# servers). Measured on 2 cores, idle, same commit: 2 workers 11:55, 3 workers 8:27.
TEST_WORKERS ?= 3
test: setup
	$(VENV)/bin/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --durations=15 $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
