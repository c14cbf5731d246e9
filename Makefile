# toolgrade's tasks. `make demo` and `make test` are all a fresh machine needs.
SHELL := /bin/bash
GO ?= go
BIN := bin/toolgrade
SERVERS := cases/servers
DEMO_DIR := $(CURDIR)/demo-out

.PHONY: all build deps nodedeps sysdeps demo test test-short fmt-check vet actionlint bench fuzz bfcl-agree clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/toolgrade

# The MCP reference servers, pinned in cases/servers/package-lock.json.
deps: $(SERVERS)/node_modules/.package-lock.json

# The system programs the tests drive: node and npm (the reference servers),
# xmllint (the JUnit report against its XSD), Debian's chromium (the HTML
# report in a real browser), and jq and shellcheck (the GitHub Action's script:
# its artifact filter, and shellcheck through actionlint and on its own). Installed with apt-get when missing and root;
# otherwise named, so `make test` never passes without them. The demo needs
# only node and npm.
NODE_PKGS := node:nodejs npm:npm
TEST_PKGS := $(NODE_PKGS) xmllint:libxml2-utils chromium:chromium jq:jq shellcheck:shellcheck
define install_missing
	@missing=""; for p in $(1); do command -v "$${p%%:*}" >/dev/null || missing="$$missing $${p#*:}"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing:$$missing"; apt-get update -qq && apt-get install -y -qq $$missing; \
	  else echo "make needs:$$missing (apt-get install$$missing)"; exit 1; fi; \
	fi
endef

nodedeps:
	$(call install_missing,$(NODE_PKGS))

# PyYAML (python3-yaml) is no command: the BFCL import's YAML 1.1 test asks
# python3 for it.
sysdeps:
	$(call install_missing,$(TEST_PKGS))
	@python3 -c 'import yaml' 2>/dev/null || /usr/bin/python3 -c 'import yaml' 2>/dev/null || \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing: python3-yaml"; apt-get update -qq && apt-get install -y -qq python3-yaml; \
	else echo "make needs: python3-yaml (apt-get install python3-yaml)"; exit 1; fi

$(SERVERS)/node_modules/.package-lock.json: $(SERVERS)/package.json $(SERVERS)/package-lock.json | nodedeps
	cd $(SERVERS) && npm ci --no-audit --no-fund --loglevel=error

# The main job on the embedded default: a scripted fake Ollama, the docs fake
# MCP server and the real filesystem server. No Ollama needed.
demo: build deps
	@rm -rf $(DEMO_DIR) && mkdir -p $(DEMO_DIR)
	@./$(BIN) fake-ollama --listen 127.0.0.1:0 --addr-file $(DEMO_DIR)/addr 2>$(DEMO_DIR)/fake-ollama.log & \
	pid=$$!; trap "kill $$pid 2>/dev/null" EXIT; \
	for i in $$(seq 100); do [ -s $(DEMO_DIR)/addr ] && break; sleep 0.05; done; \
	if [ ! -s $(DEMO_DIR)/addr ]; then cat $(DEMO_DIR)/fake-ollama.log; exit 1; fi; \
	export OLLAMA_HOST=http://$$(cat $(DEMO_DIR)/addr) PATH="$(CURDIR)/bin:$$PATH"; \
	set -e; \
	echo "# fake Ollama at $$OLLAMA_HOST"; \
	echo; echo '$$ toolgrade tools --servers cases/servers/demo.json'; \
	toolgrade tools --servers cases/servers/demo.json; \
	echo; echo '$$ toolgrade ask --servers cases/servers/demo.json --model scripted-good "Can I bring my dog?"'; \
	toolgrade ask --servers cases/servers/demo.json --model scripted-good "Can I bring my dog?"; \
	echo; echo '$$ toolgrade ask --servers cases/servers/demo.json --model scripted-good "Read service.conf in the allowed directory and report the database port."'; \
	toolgrade ask --servers cases/servers/demo.json --model scripted-good "Read service.conf in the allowed directory and report the database port."; \
	echo; echo '$$ toolgrade run cases/docs.yaml --out demo-out/run'; \
	toolgrade run cases/docs.yaml --out $(DEMO_DIR)/run; \
	echo; echo '$$ toolgrade compare demo-out/run --models scripted-good,scripted-weak'; \
	toolgrade compare $(DEMO_DIR)/run --models scripted-good,scripted-weak; \
	echo; echo '$$ toolgrade choose demo-out/run'; \
	toolgrade choose $(DEMO_DIR)/run; \
	echo; echo '$$ toolgrade tools --suite cases/docs-variants.yaml --variant explicit-get'; \
	toolgrade tools --suite cases/docs-variants.yaml --variant explicit-get | grep -v '^warning:'; \
	echo; echo '$$ toolgrade run cases/docs-variants.yaml --repeat 3 --out demo-out/variants'; \
	toolgrade run cases/docs-variants.yaml --repeat 3 --out $(DEMO_DIR)/variants; \
	echo; echo '$$ toolgrade compare demo-out/variants --variants base,explicit-get'; \
	toolgrade compare $(DEMO_DIR)/variants --variants base,explicit-get; \
	echo; echo '$$ toolgrade run cases/sweep.yaml --out demo-out/sweep'; \
	toolgrade run cases/sweep.yaml --out $(DEMO_DIR)/sweep; \
	echo; echo '$$ toolgrade compare demo-out/sweep --sweep decoys'; \
	toolgrade compare $(DEMO_DIR)/sweep --sweep decoys; \
	echo "(the curves as charts: demo-out/sweep/report.html)"; \
	echo; echo '$$ toolgrade serve --servers cases/servers/demo.json --listen 127.0.0.1:0 &'; \
	toolgrade serve --servers cases/servers/demo.json --listen 127.0.0.1:0 --addr-file $(DEMO_DIR)/serve-addr 2>$(DEMO_DIR)/serve.log & \
	spid=$$!; trap "kill $$pid $$spid 2>/dev/null" EXIT; \
	for i in $$(seq 200); do [ -s $(DEMO_DIR)/serve-addr ] && break; sleep 0.05; done; \
	if [ ! -s $(DEMO_DIR)/serve-addr ]; then cat $(DEMO_DIR)/serve.log; exit 1; fi; \
	head -n 1 $(DEMO_DIR)/serve.log; \
	serve=http://$$(cat $(DEMO_DIR)/serve-addr); \
	echo; echo "$$ curl -s $$serve/api/chat -d '{\"model\":\"scripted-good\",\"stream\":false,\"messages\":[{\"role\":\"user\",\"content\":\"Can I bring my dog?\"}]}'"; \
	curl -sS --fail-with-body $$serve/api/chat -d '{"model":"scripted-good","stream":false,"messages":[{"role":"user","content":"Can I bring my dog?"}]}'; echo; \
	echo; echo "$$ curl -s $$serve/api/chat -d '{\"model\":\"scripted-good\",\"messages\":[{\"role\":\"user\",\"content\":\"Read service.conf in the allowed directory and report the database port.\"}]}'"; \
	curl -sS --fail-with-body $$serve/api/chat -d '{"model":"scripted-good","messages":[{"role":"user","content":"Read service.conf in the allowed directory and report the database port."}]}'; \
	echo; echo "$$ curl -s $$serve/health"; \
	curl -sS $$serve/health; echo; \
	echo; echo '# serve log:'; tail -n +2 $(DEMO_DIR)/serve.log; \
	echo; echo '$$ toolgrade run cases/scenarios.yaml --out demo-out/scenarios'; \
	toolgrade run cases/scenarios.yaml --out $(DEMO_DIR)/scenarios; \
	echo; echo '$$ toolgrade show demo-out/scenarios --case packing-list --model scripted-weak'; \
	toolgrade show $(DEMO_DIR)/scenarios --case packing-list --model scripted-weak

# -parallel 4: cmd/toolgrade's tests wait on the servers, commands and
# browsers they start, so four at once keep two cores busy (its tests took
# 70 s where two at once took 96 s, on two cores).
test: sysdeps deps fmt-check vet
	$(GO) test -race -count=1 -parallel 4 ./...

# The quick loop while editing: no race detector, and the slow tests skip,
# each saying why (browsers, the npm reference servers, huge results, the
# full statistics grid). make test runs them all.
test-short:
	$(GO) test -short ./...

fmt-check:
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path '*/node_modules/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# actionlint (go.mod's tool) over action.yml's steps and the example
# workflows docs/ci.md shows; a test of internal/action, so `make test` runs
# it too.
actionlint:
	$(GO) test -count=1 -run Actionlint ./internal/action

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem ./...

# toolgrade's BFCL verdicts against BFCL's own checker (docs/bfcl.md,
# "Measuring agreement with BFCL's checker"): BFCL=PATH names a checkout of
# berkeley-function-call-leaderboard, which stays out of this repository;
# BFCL_AGREE_REPORT=FILE keeps the disagreement table.
bfcl-agree:
	@test -n "$(BFCL)" || { echo "make bfcl-agree BFCL=/path/to/berkeley-function-call-leaderboard"; exit 2; }
	TOOLGRADE_BFCL_SRC="$(BFCL)" TOOLGRADE_BFCL_AGREE_REPORT="$(BFCL_AGREE_REPORT)" \
	  $(GO) test -count=1 -v -timeout 30m -run '^TestBFCLAgreement$$' ./cmd/toolgrade

# Every fuzz target of the module, one after another, FUZZTIME each; the
# targets are listed afresh (go test -list), so a new one needs no edit
# here. Go minimizes each new input for up to 60 s by default, and counts no
# execution meanwhile: a target whose inputs are large (FuzzParseScript's
# seeds are whole scripts) spent nearly all its time minimizing, 28
# executions a minute from a fresh cache. FUZZFLAGS bounds minimizing by a
# count of tries, alike on any machine (500 tries: 126,000 executions in
# 30 s where 10 s of minimizing made 21,000); add -parallel 1 to leave a
# core free.
# A run that failed with Go 1.26's bare "context deadline exceeded" and no
# failing input is not a finding (go.dev/issue/75804, fixed in Go 1.27: a
# race at the end of -fuzztime); any other failure stops make fuzz.
FUZZTIME ?= 1m
FUZZFLAGS ?= -fuzzminimizetime 500x
fuzz:
	@set -eo pipefail; $(GO) test -list '^Fuzz' ./... | \
	awk '/^Fuzz/ { names = names " " $$1 } /^(ok|\?) / { if (names != "") print $$2 names; names = "" }' | \
	while read -r pkg names; do \
	  for name in $$names; do \
	    echo "== $$name ($$pkg)"; \
	    log=$$(mktemp); \
	    if ! $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) $$pkg 2>&1 | tee "$$log"; then \
	      if grep -q 'Failing input written' "$$log" || ! grep -qx '    context deadline exceeded' "$$log"; then rm -f "$$log"; exit 1; fi; \
	      echo "fuzz: $$name stopped with no failing input written: Go 1.26's coordinator race at the end of -fuzztime (go.dev/issue/75804), not a finding"; \
	    fi; \
	    rm -f "$$log"; \
	  done; \
	done

clean:
	rm -rf bin $(DEMO_DIR)
