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

# two workers, whole files each: most tests wait on a browser page or a phone, so two files in
# flight keep both cores busy (each worker has its own Chromium and private adb servers)
TEST_WORKERS ?= 2
test: setup
	$(VENV)/bin/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --durations=15 $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
