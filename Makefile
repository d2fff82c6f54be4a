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

# four workers, whole files each: most tests wait on a browser page, a phone or a subprocess,
# so four files in flight keep two cores busy (each worker has its own Chromium and private adb
# servers). Measured on 2 cores, idle, same tree: 3 workers 10:49, 4 workers
# 9:29 (the cores still idle 21% of it). The longest files start first (tests/conftest.py LONG_FILES).
TEST_WORKERS ?= 4
test: setup
	$(VENV)/bin/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --durations=15 $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
