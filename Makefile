# gno — see README.md. `make demo` sets up and runs the main job on the
# sample corpus; `make test` runs every check CI runs.

GO        ?= go
BIN       := bin/gno
# The build workspace of release.mk (declared here: prerequisites expand
# as the Makefile is read).
BUILD_WORK := .cache/build/go.work
DEMO_HOME := $(CURDIR)/.cache/demo-home
FUZZTIME  ?= 10s

.PHONY: all build demo test check vet fmt-check staticcheck unit fuzz mcp-checks clean bench-pkgdocs

all: build

# One binary: `gno mcp` is served by gno itself. GOBUILD (release.mk)
# builds with the start-up patch of third_party/; plain `go build` and
# `go install` work too, about 6 ms slower to start.
build: $(BUILD_WORK)
	$(GOBUILD) -o bin/ ./cmd/gno

# Fetch what the demo uses (ONNX Runtime and the default embedder), index
# examples/corpus, answer queries.
demo: build setup
	rm -rf $(DEMO_HOME)
	GNO_HOME=$(DEMO_HOME) $(BIN) collection add examples/corpus --name demo --include '**/*.txt'
	GNO_HOME=$(DEMO_HOME) $(BIN) index
	GNO_HOME=$(DEMO_HOME) $(BIN) search "sqlite write ahead log checkpoint" -n 3
	GNO_HOME=$(DEMO_HOME) $(BIN) query "how do search engines merge keyword and semantic results" -n 3
	GNO_HOME=$(DEMO_HOME) $(BIN) status

# Everything CI checks: static checks, unit and integration tests with the
# real ONNX Runtime and models, a short fuzzing pass, and the tests that
# create an index once more on PostgreSQL (test-pg, postgres.mk) when one
# starts.
# Go's test output comes last: it is the verdict CI reads.
test: setup models check cross mcp-checks fuzz unit test-pg

mcp-checks: build
	$(if $(MCP_TEST_TARGETS),$(MAKE) $(MCP_TEST_TARGETS),@echo 'npm not found: MCP client checks skipped')

check: vet fmt-check staticcheck

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null; git ls-files --others --exclude-standard '*.go' 2>/dev/null)); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

staticcheck:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

# The timeout is twice go test's default: server/web's browser tests took
# 6 of the default 10 minutes on a loaded 2-core CI machine.
unit: $(BUILD_WORK)
	GOWORK=$(CURDIR)/$(BUILD_WORK) $(GO) test -count=1 -timeout 20m ./...

# Every fuzz target, PACKAGE:TARGET, each run FUZZTIME by .ci/fuzz (which
# retries a run Go's fuzz coordinator failed by its own deadline race).
FUZZ_TARGETS := \
	./retrieval/ref:FuzzParse \
	./retrieval/query:FuzzParse \
	./retrieval/query:FuzzSegmentRoundTrip \
	./retrieval/chunk:FuzzMarkdown \
	./retrieval/convert:FuzzOOXML \
	./retrieval/convert:FuzzMail \
	./retrieval/convert:FuzzHTML \
	./retrieval/convert:FuzzPDF \
	./retrieval/links:FuzzExtract \
	./retrieval/store:FuzzDecodeLinks \
	./retrieval/store:FuzzFTS5Varint \
	./retrieval/store:FuzzImpactBlocks \
	./retrieval/store:FuzzSegmentPages \
	./retrieval/store/wordtok:FuzzTokens \
	./retrieval/store/postgres:FuzzParseExpr \
	./retrieval/vector:FuzzRead \
	./retrieval/vector:FuzzGraphFile \
	./retrieval/vector:FuzzGoneList \
	./answer:FuzzCheck \
	./retrieval/graph/layout:FuzzDecode \
	./answer:FuzzCheck \
	./server/web:FuzzRender \
	./retrieval/note:FuzzSetProps \
	./models:FuzzPickWheel \
	./retrieval/ingest:FuzzFrontMatter \
	./retrieval/ingest:FuzzIncludeSet \
	./retrieval/query:FuzzParseDoc \
	./retrieval/config:FuzzParse \
	./server:FuzzToolArgs \
	./pkgdocs/apidoc:FuzzPyBuiltins \
	./pkgdocs/packages:FuzzMetadata \
	./pkgdocs/packages:FuzzRequirement \
	./pkgdocs/packages:FuzzPnpmDepPath \
	./pkgdocs/packages:FuzzNPMLock \
	./pkgdocs/packages:FuzzPackageResolved \
	./pkgdocs/packages:FuzzArchiveName \
	./pkgdocs/apidoc:FuzzTypeScript \
	./pkgdocs/apidoc:FuzzJavaScript \
	./pkgdocs/apidoc:FuzzJSDoc \
	./pkgdocs/apidoc:FuzzRust \
	./pkgdocs/apidoc:FuzzRustMacros \
	./pkgdocs/apidoc:FuzzSwift \
	./pkgdocs/apidoc:FuzzPython \
	./pkgdocs/apidoc:FuzzPyExports \
	./pkgdocs/apidoc:FuzzReadme \
	./pkgdocs/apidoc:FuzzReadmeSections \
	./pkgdocs/apidoc:FuzzChangelog \
	./retrieval/ref:FuzzParsePackageURI \
	./pkgdocs:FuzzSections \
	./pkgdocs:FuzzSymbolRefs \
	./server/auth:FuzzParseToken \
	./server/auth:FuzzParseBearer \
	./server/auth:FuzzParseTTL \
	./server/remote:FuzzParsePin \
	./server/install:FuzzEdit \
	./server/daemon/wire:FuzzReadRequest \
	./inference/onnx:FuzzDecodeTokCache \
	./inference/onnx:FuzzParseCached \
	./retrieval/config/dirs:FuzzIsName

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do .ci/fuzz "$${t%%:*}" "$${t#*:}"; done

# The ranking set of the package docs (bench/pkgdocs/ranked.go): the
# project of 36 real packages installed by their clients, its units
# embedded, then hit@3 and MRR@10 per ecosystem for search, fast and query,
# both halves (bench/RESULTS.md). Needs go, npm, pip and cargo, and the
# models (`make setup models`); PKGBENCH_HOME keeps the index between runs.
PKGBENCH_HOME ?= $(CURDIR)/.cache/pkgbench
bench-pkgdocs:
	$(GO) build -o .cache/gnopkgbench ./bench/cmd/gnopkgbench
	@test -d $(PKGBENCH_HOME)/project || .cache/gnopkgbench project -set ranked -out $(PKGBENCH_HOME)/project
	GNO_MODELS_DIR=$${GNO_MODELS_DIR:-$$HOME/.cache/gno/models} GNO_HOME=$(PKGBENCH_HOME)/home .cache/gnopkgbench ranked -project $(PKGBENCH_HOME)/project -modes search,fast,query -scope project
	GNO_MODELS_DIR=$${GNO_MODELS_DIR:-$$HOME/.cache/gno/models} GNO_HOME=$(PKGBENCH_HOME)/home .cache/gnopkgbench ranked -project $(PKGBENCH_HOME)/project -modes search,fast,query -scope ecosystem -embed=false

clean:
	rm -rf bin dist .cache/demo-home .cache/build

-include release.mk
-include models.mk
-include bench.mk
-include mcp.mk
-include reliability.mk
-include postgres.mk
