# Router DDNS and IPv6 egress tools. `make test` and `make demo` are all a newcomer needs.
PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
TOOLS  := updater_a updater_b egress6 egress6_win

.PHONY: test demo standalone feed bench check-py38 clean

$(VENV)/.installed: tests/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt
	touch $@

test: $(VENV)/.installed
	$(VPY) -m pytest -q tests

demo:
	$(PYTHON) tests/sandbox.py demo

standalone: $(patsubst %,dist/%.py,$(TOOLS))

dist/%.py: bin/%.py $(wildcard lib/ddkit/*.py) tools/standalone.py
	$(PYTHON) tools/standalone.py $< $@

# the opkg feed of the router tools (the Windows tool is not a package): the library as the package
# ddkit, each tool a package of its own, built from bin/ and lib/; `make feed KEY=x.sec` also signs
# Packages with that signify/usign secret key. The same packages for apk (OpenWrt 25.12 and later) go
# to dist/apk/ with packages.adb; `make feed APK_KEY=key.pem` signs them with that EC P-256 key.
feed:
	$(PYTHON) tools/feed.py --out dist/feed $(if $(KEY),--key $(KEY))
	$(PYTHON) tools/apkfeed.py --out dist/apk $(if $(APK_KEY),--key $(APK_KEY))

# what one cron run of each tool costs beside its references (BENCHMARKS.md); not part of `make test`.
# Run as root it builds a throw-away network namespace for the iface paths. It rebuilds the single
# files and the feed first (it runs the tools as the packages install them too) and writes its
# table into BENCHMARKS.md.
bench: standalone feed
	/usr/bin/python3 tools/bench.py --write BENCHMARKS.md

check-py38: $(VENV)/.installed
	$(VENV)/bin/vermin --no-tips --violations -t=3.8- bin lib tools

clean:
	rm -rf dist build .pytest_cache
