# pi-go: the two commands a new user needs are `make run` and `make test`.
GO      ?= go
BIN     := bin/pi
# --version prints cmd/pi/version.go's version (VERSION=x.y.z overrides it) and the commit built,
# "-dirty" when the tree had changes (Go's own vcs stamp is not relied on: GOFLAGS may turn it off).
COMMIT  ?= $(shell git describe --always --dirty --abbrev=7 --exclude='*' 2>/dev/null)
LDFLAGS := -s -w -X main.commit=$(COMMIT) $(if $(VERSION),-X main.version=$(VERSION))
# Debian packages the tests drive: tmux (TUI end-to-end), ripgrep and fd-find (grep/find parity), npm
# (to install the Node and pi below), chromium (the HTML export opened in a headless browser).
TEST_PACKAGES := tmux ripgrep fd-find npm chromium
# Node 22 and pi 1.6.0 for the test that drives pi-go with pi's own RpcClient (cmd/pi), installed once
# into a cache outside the module. `make test` sets PI_GO_REQUIRE_NODE=1: that test then fails instead
# of skipping when they are missing. cmd/pi/rpcclient_e2e_test.go names the same versions.
PI_TEST_CACHE     ?= $(HOME)/.cache/pi-go-test
TEST_NODE_VERSION := 22.23.5
TEST_PI_VERSION   := 1.6.0
NODE_PACKAGE      := node-$(shell uname -s | tr A-Z a-z)-$(subst aarch64,arm64,$(subst x86_64,x64,$(shell uname -m)))
TEST_NODE_DIR     := $(PI_TEST_CACHE)/node-$(TEST_NODE_VERSION)
TEST_PI_DIR       := $(PI_TEST_CACHE)/pi-$(TEST_PI_VERSION)
# The MCP reference servers internal/mcp's tests connect to (internal/mcp/node_test.go names the same).
TEST_MCP_VERSION  := 2026.8.31
TEST_MCP_DIR      := $(PI_TEST_CACHE)/mcp-servers-$(TEST_MCP_VERSION)
# pi 0.73.1 on the machine's Node (the npm package's nodejs): the extension tests run pi's examples with it too.
# Installed from a lock file (testdata/npm): a fresh resolve of 0.73.1's AWS SDK dependencies asks for
# versions the npm registry here does not serve.
TEST_PI073_VERSION := 0.73.1
TEST_PI073_DIR     := $(PI_TEST_CACHE)/pi-$(TEST_PI073_VERSION)

.PHONY: all run build install test deps bench bench-hyperfine bench-vs-pi lint fmt clean

all: build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/pi

run: build
	./$(BIN) $(ARGS)

install:
	CGO_ENABLED=0 $(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cmd/pi

# deps installs what the tests need and is safe to run repeatedly.
deps:
	@missing=""; \
	command -v tmux >/dev/null 2>&1 || missing="$$missing tmux"; \
	command -v rg >/dev/null 2>&1 || missing="$$missing ripgrep"; \
	(command -v fdfind >/dev/null 2>&1 || command -v fd >/dev/null 2>&1) || missing="$$missing fd-find"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq >/dev/null && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null || \
		{ echo "could not install:$$missing (tests that need them will fail)"; exit 1; }; \
	fi
	@if [ ! -x "$(TEST_NODE_DIR)/node_modules/$(NODE_PACKAGE)/bin/node" ]; then \
		echo "installing Node $(TEST_NODE_VERSION) into $(TEST_NODE_DIR)"; \
		npm install --silent --no-audit --no-fund --prefix "$(TEST_NODE_DIR)" $(NODE_PACKAGE)@$(TEST_NODE_VERSION) >/dev/null || \
		{ echo "could not install Node $(TEST_NODE_VERSION) (the RpcClient test will fail)"; exit 1; }; \
	fi
	@if [ ! -f "$(TEST_PI_DIR)/node_modules/@earendil-works/pi-coding-agent/dist/modes/rpc/rpc-client.js" ]; then \
		echo "installing pi $(TEST_PI_VERSION) into $(TEST_PI_DIR)"; \
		npm install --silent --no-audit --no-fund --prefix "$(TEST_PI_DIR)" @earendil-works/pi-coding-agent@$(TEST_PI_VERSION) >/dev/null || \
		{ echo "could not install pi $(TEST_PI_VERSION) (the RpcClient test will fail)"; exit 1; }; \
	fi
	@if [ ! -f "$(TEST_MCP_DIR)/node_modules/@modelcontextprotocol/server-everything/dist/index.js" ] || \
	    [ ! -f "$(TEST_MCP_DIR)/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js" ]; then \
		echo "installing the MCP reference servers $(TEST_MCP_VERSION) into $(TEST_MCP_DIR)"; \
		npm install --silent --no-audit --no-fund --prefix "$(TEST_MCP_DIR)" \
			@modelcontextprotocol/server-filesystem@$(TEST_MCP_VERSION) @modelcontextprotocol/server-everything@$(TEST_MCP_VERSION) >/dev/null || \
		{ echo "could not install the MCP reference servers (internal/mcp's reference test will fail)"; exit 1; }; \
	fi
	@if [ ! -f "$(TEST_PI073_DIR)/node_modules/@mariozechner/pi-coding-agent/dist/index.js" ]; then \
		echo "installing pi $(TEST_PI073_VERSION) into $(TEST_PI073_DIR)"; \
		mkdir -p "$(TEST_PI073_DIR)" && cp testdata/npm/pi-$(TEST_PI073_VERSION)/package.json testdata/npm/pi-$(TEST_PI073_VERSION)/package-lock.json "$(TEST_PI073_DIR)/" && \
		npm ci --silent --no-audit --no-fund --prefix "$(TEST_PI073_DIR)" >/dev/null || \
		{ echo "could not install pi $(TEST_PI073_VERSION) (the extension tests will fail)"; exit 1; }; \
	fi
	$(GO) mod download

test: deps
	$(GO) vet ./...
	PI_GO_REQUIRE_NODE=1 PI_GO_TEST_CACHE="$(PI_TEST_CACHE)" $(GO) test -race -timeout 9m ./...

# bench runs every benchmark behind the issues' performance targets, one package at a time (-p 1: the
# machine's cores are not shared between two benchmarks). It takes minutes: process benchmarks run the
# built binary (BenchmarkStream/json/200k alone writes 40 GB through a pipe). BENCH_COUNT=6 repeats each
# for benchstat. bench-hyperfine measures the issue-6 commands with hyperfine, when it is installed.
BENCH_COUNT ?= 1
bench:
	$(GO) test -p 1 -run '^$$' -bench . -benchmem -count $(BENCH_COUNT) -timeout 90m ./...

bench-hyperfine: build
	scripts/bench-hyperfine.sh $(BIN)

# bench-vs-pi prints pi-go and pi 1.6.0 side by side on issue 22's targets (docs/performance.md);
# it installs Node 22 and pi 1.6.0 into PI_TEST_CACHE when missing. BENCH_VS_PI_ARGS=-runs 5 -only print,json.
bench-vs-pi: build
	PI_GO_TEST_CACHE="$(PI_TEST_CACHE)" $(GO) run ./scripts/bench-vs-pi -pigo $(BIN) $(BENCH_VS_PI_ARGS)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "not gofmt-ed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin
