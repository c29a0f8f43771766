# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# torch first and pinned: here it resolves to a local CPU build, while an
# unpinned torch pulled in by a dependency would fetch several GB of CUDA wheels.
TORCH_SPEC ?= torch==2.13.0
export HF_HUB_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1
export TOKENIZERS_PARALLELISM ?= false

.PHONY: demo test test-fast docs lint install install-dev browser clean dist

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q "$(TORCH_SPEC)"
	$(BIN)/pip install -q -e ".[onnx,specter2]"
	# compile ranx's numba kernels once into numba's on-disk cache: the first `sciembed eval run` is then warm
	$(BIN)/python -m sciembed.evaluation.warmup
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed
	$(BIN)/pip install -q -e ".[onnx,specter2,ray,dev]"
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

demo: install
	$(BIN)/sciembed demo --out runs/demo

# The browser test drives Debian's chromium through Debian's chromedriver (nothing downloaded at test time).
browser:
	@command -v chromium >/dev/null && test -x /usr/bin/chromedriver || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver)

# Two pytest workers (pytest-xdist), a test module per worker (`loadscope`: module fixtures built once):
# 11 min 49 s for the whole suite on the quiet 2-core box, against 15-17 min in one process.
test: install-dev browser
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mkdocs build --strict --site-dir runs/site
	$(BIN)/python -m pytest -n 2 --dist loadscope

# The inner loop: everything but the end-to-end checks marked slow (under 2 minutes).
test-fast: install-dev
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/python -m pytest -m "not slow" -x

# The documentation site (docs/, mkdocs-material); `--strict` turns every warning into an error.
docs: install-dev
	$(BIN)/mkdocs build --strict --site-dir runs/site

lint: install-dev
	$(BIN)/ruff check src tests benchmarks

# A wheel in dist/, then installed into a fresh venv whose `sciembed` console script must run. The fresh venv
# borrows this venv's dependencies (PYTHONPATH: its site-packages) so that nothing is downloaded.
dist: install
	rm -rf dist build runs/dist-venv
	$(BIN)/pip wheel -q --no-deps --no-build-isolation -w dist .
	$(PYTHON) -m venv runs/dist-venv
	runs/dist-venv/bin/pip install -q --no-deps --no-index dist/sciembed-*.whl
	PYTHONPATH=$$($(BIN)/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])") \
		runs/dist-venv/bin/sciembed demo --help >/dev/null
	PYTHONPATH=$$($(BIN)/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])") \
		runs/dist-venv/bin/sciembed --version
	@ls dist/*.whl

clean:
	rm -rf $(VENV) runs dist build
