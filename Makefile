# Router DDNS and IPv6 egress tools. `make test` and `make demo` are all a newcomer needs.
PYTHON ?= python3
# another Python (make test PYTHON=python3.8) gets a venv of its own, .venv-3.8
VENV   := $(if $(filter python3,$(PYTHON)),.venv,.venv-$(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])'))
VPY    := $(VENV)/bin/python
TOOLS  := ddkit updater_a updater_b egress6 egress6_win

.PHONY: help test test-full demo docs standalone feed wheel bench bench-peers check-py38 clean
# test workers: three a core, as most tests wait on a child process, a timeout or a retry's backoff
JOBS   ?= 6
.DEFAULT_GOAL := help

help:
	@echo 'make demo         the updaters end to end against local fake servers (no account, no venv)'
	@echo 'make test         the test suite, in parallel, slow tables sampled: ~2 min on 2 cores'
	@echo '                  (first builds $(VENV) with tests/requirements.txt)'
	@echo 'make test-full    the same with every row of the slow tables (what CI runs)'
	@echo '                  offline: make test WHEELS=<dir of wheels from pip wheel>'
	@echo 'make docs         docs/settings.md: the table of each provider'"'"'s own settings'
	@echo 'make standalone   dist/<tool>.py: each tool as one file to copy to a router'
	@echo 'make feed         dist/feed/: the opkg feed (KEY=<usign secret key> signs it);'
	@echo '                  dist/apk/: the apk feed (APK_KEY=<EC P-256 key PEM> signs it)'
	@echo 'make wheel        dist/ddkit-<version>-py3-none-any.whl: the tools for pip or pipx on a PC,'
	@echo '                  a NAS or a server (docs/linux.md); offline: WHEELS=<dir holding setuptools>'
	@echo 'make bench        what one cron run costs (WRITE=1 also rewrites BENCHMARKS.md)'
	@echo 'make bench-peers  as root: ddclient (apt) and NewFuture/DDNS (a venv in /var/tmp), the peers'
	@echo '                  make bench runs beside ours (never needed to run or test the tools)'
	@echo 'make check-py38   the code stays Python 3.8 compatible (vermin)'
	@echo 'make clean        remove dist/ and build/'

# the test tools come from PyPI, or with WHEELS=<dir> from a directory of wheels and nothing else.
# The venv gets a current pip from $(PYTHON)'s own (pip 22.3+: --python): it picks among the SDKs'
# thousands of releases in a third of the time of the one venv bundles, which it falls back to
# (ensurepip) where that cannot be had: no pip beside $(PYTHON), or offline without a pip wheel
$(VENV)/.installed: tests/requirements.txt
	$(PYTHON) -m venv --without-pip $(VENV)
	@$(PYTHON) -m pip --python $(VPY) install --quiet --disable-pip-version-check --upgrade \
	  $(if $(WHEELS),--no-index --find-links $(WHEELS)) pip >/dev/null 2>&1 || $(VPY) -m ensurepip --default-pip >/dev/null
	@$(VPY) -m pip install --quiet --disable-pip-version-check \
	  $(if $(WHEELS),--no-index --find-links $(WHEELS)) -r tests/requirements.txt || { \
	  echo 'make: could not install the test tools of tests/requirements.txt:' \
	    "$$(grep -v '^#' tests/requirements.txt | tr '\n' ' ')" >&2; \
	  echo 'offline: on a machine with internet run "pip wheel -w wheels -r tests/requirements.txt",' \
	    'copy wheels/ here, then "make test WHEELS=wheels"' >&2; exit 1; }
	touch $@

# the slowest tests are listed after each run, so the cost of a new one shows. Compiled code is kept
# (PYTHONDONTWRITEBYTECODE unset, as on CI): pytest's rewritten test modules, and the library's, which
# every tool a test starts would compile. One collection first writes the test modules' (4 s; 1 s once
# written), which each of the workers would otherwise rewrite at once (16 s on 2 cores)
PYTEST = PYTHONDONTWRITEBYTECODE= $(VPY) -m pytest -q

test: $(VENV)/.installed
	@$(PYTEST) --collect-only tests >/dev/null 2>&1 || true
	$(PYTEST) -n $(JOBS) --durations=15 tests

test-full: $(VENV)/.installed
	@$(PYTEST) --collect-only tests >/dev/null 2>&1 || true
	DDKIT_TESTS=full $(PYTEST) -n $(JOBS) --durations=15 tests

demo:
	$(PYTHON) tests/sandbox.py demo

docs:
	$(PYTHON) tools/settings_doc.py --write

standalone: $(patsubst %,dist/%.py,$(TOOLS))

# PROVIDERS=a,b (registry names): dist/ddkit.py holds those providers alone, what a router needs (the
# 160 KB budget; every provider: 256 KB); build/standalone-providers keeps the last value, so that a
# change of it rebuilds the file
dist/%.py: bin/%.py $(wildcard lib/ddkit/*.py lib/ddkit/providers/*.py) tools/standalone.py
	$(PYTHON) tools/standalone.py $< $@$(if $(and $(PROVIDERS),$(filter ddkit,$*)), --providers $(PROVIDERS))

dist/ddkit.py: build/standalone-providers

build/standalone-providers: FORCE
	@mkdir -p build; echo '$(PROVIDERS)' | cmp -s - $@ || echo '$(PROVIDERS)' > $@

FORCE:

# the opkg feed of the router tools (the Windows tool is not a package): the library as the package
# ddkit, each tool a package of its own, built from bin/ and lib/; `make feed KEY=x.sec` also signs
# Packages with that signify/usign secret key. The same packages for apk (OpenWrt 25.12 and later) go
# to dist/apk/ with packages.adb; `make feed APK_KEY=key.pem` signs them with that EC P-256 key.
feed:
	@# both keys first: a missing or wrong one stops the build before anything is written
	$(if $(KEY),$(PYTHON) tools/feed.py --check --key $(KEY))
	$(if $(APK_KEY),$(PYTHON) tools/apkfeed.py --check --key $(APK_KEY))
	$(PYTHON) tools/feed.py --out dist/feed $(if $(KEY),--key $(KEY))
	$(PYTHON) tools/apkfeed.py --out dist/apk $(if $(APK_KEY),--key $(APK_KEY))

# The tools as a Python package (pyproject.toml, setup.py): ddkit, updater_a, updater_b, egress6 and
# egress6_win on PATH after `pip install dist/ddkit-*.whl`. $(PYTHON)'s own setuptools builds it when it
# can (61.2+, with the package wheel before 70.1: Debian's python3-setuptools and python3-wheel), with
# nothing downloaded; else pip gets setuptools for the build alone, from PyPI or WHEELS=<dir>. build/'s
# copy goes first: setuptools packs whatever build/lib holds, a module since removed from lib/ included.
# Its files are dated SOURCE_DATE_EPOCH, else the last commit's time, as the feed's: a rebuild by the same
# setuptools gives the same bytes.
CAN_BUILD_WHEEL = import setuptools, sys; v = tuple(map(int, setuptools.__version__.split(".")[:2])); \
  v >= (70, 1) or __import__("wheel"); sys.exit(v < (61, 2))

wheel:
	@rm -rf build/lib build/bdist.* build/ddkit.egg-info dist/ddkit-*-py3-none-any.whl
	@export SOURCE_DATE_EPOCH=$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null)}; \
	  [ -n "$$SOURCE_DATE_EPOCH" ] || unset SOURCE_DATE_EPOCH; \
	  if $(PYTHON) -c '$(CAN_BUILD_WHEEL)' 2>/dev/null; then isolation=--no-build-isolation; \
	  echo "make wheel: with $(PYTHON)'s setuptools"; else isolation=; \
	  echo "make wheel: $(PYTHON) has no setuptools 61.2+ that builds wheels: pip gets one for the build"; fi; \
	  $(PYTHON) -m pip wheel --quiet --disable-pip-version-check --no-deps --wheel-dir dist $$isolation \
	  $(if $(WHEELS),--no-index --find-links $(WHEELS)) . || { \
	  echo 'make wheel: no build. Offline: apt-get install python3-setuptools python3-wheel, then' \
	    'make wheel PYTHON=/usr/bin/python3; or "pip download -d wheels setuptools" on a machine with' \
	    'internet, copy wheels/ here, then "make wheel WHEELS=wheels"' >&2; exit 1; }
	@ls -l dist/ddkit-*-py3-none-any.whl

# what one cron run of each tool costs beside its references (BENCHMARKS.md); not part of `make test`.
# Run as root it builds a throw-away network namespace for the iface paths. It rebuilds the single
# files and the feed first (it runs the tools as the packages install them too) and prints its
# table; `make bench WRITE=1` also writes it into BENCHMARKS.md.
bench: standalone feed
	/usr/bin/python3 tools/bench.py $(if $(WRITE),--write BENCHMARKS.md)

# the peers make bench runs beside updater_a (tools/bench_peers.py; skipped when missing): ddclient from
# Debian's packages, its daemon disabled, and NewFuture/DDNS from PyPI in a venv outside the repository
bench-peers:
	/usr/bin/python3 tools/bench_peers.py --install

check-py38: $(VENV)/.installed
	$(VENV)/bin/vermin --no-tips --violations -t=3.8- bin lib tools

clean:
	rm -rf dist build .pytest_cache
