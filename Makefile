# tcab — see README.md. Every target is safe to re-run.
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip
export DOCKER_HOST ?= unix:///run/tcab/podman.sock

.PHONY: setup node-deps host podman images test demo bench lint clean

setup:            ## install tcab and its Python dependencies (editable)
	$(PIP) install --quiet -e '.[dev]'

host:             ## install the system packages tcab needs (Debian: podman, runc, debootstrap, ...)
	bash containers/install-host.sh

podman: host      ## start Podman's Docker-compatible socket at $(DOCKER_HOST)
	bash containers/start-podman.sh

images: podman    ## build the run images locally from Debian (debootstrap + layers)
	bash containers/build-images.sh

node-deps:        ## handlebars.js (the template tests compare tcab with it) and the Khronos glTF validator, pinned
	npm ci --prefix tests/templates/node --no-audit --no-fund
	npm ci --prefix tcab/web3d/node --no-audit --no-fund

test: setup node-deps images ## the whole test suite, against real Podman (installs and starts what it needs)
	$(PYTHON) -m pytest -q

demo: setup images ## the main job: run the demo sweep (benchmark.yaml) and print the standings
	$(PYTHON) -m doit -f dodo.py
	@echo "tables: tcab report   one task: doit list, doit info TASK   another plan: doit plan=plans/agents.yaml"

bench: setup      ## run the benchmarks; each prints ratios against its own baseline
	for b in bench/*.py; do echo "== $$b"; $(PYTHON) $$b || exit 1; done

lint: setup
	$(PYTHON) -m ruff check tcab tests bench dodo.py

clean:
	rm -rf build results tmp .doit.db*
