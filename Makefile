# gno — see README.md. `make demo` sets up and runs the main job on the
# sample corpus; `make test` runs every check CI runs.

GO        ?= go
BIN       := bin/gno
# The build workspace of release.mk (declared here: prerequisites expand
# as the Makefile is read).
BUILD_WORK := .cache/build/go.work
DEMO_HOME := $(CURDIR)/.cache/demo-home
FUZZTIME  ?= 10s

.PHONY: all build demo test check vet fmt-check staticcheck unit fuzz mcp-checks clean

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
# real ONNX Runtime and models, and a short fuzzing pass.
# Go's test output comes last: it is the verdict CI reads.
test: setup models check cross mcp-checks fuzz unit

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

unit: $(BUILD_WORK)
	GOWORK=$(CURDIR)/$(BUILD_WORK) $(GO) test -count=1 ./...

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./retrieval/ref
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./retrieval/query
	$(GO) test -run '^$$' -fuzz '^FuzzSegmentRoundTrip$$' -fuzztime $(FUZZTIME) ./retrieval/query
	$(GO) test -run '^$$' -fuzz '^FuzzMarkdown$$' -fuzztime $(FUZZTIME) ./retrieval/chunk
	$(GO) test -run '^$$' -fuzz '^FuzzOOXML$$' -fuzzminimizetime 2s -fuzztime $(FUZZTIME) ./retrieval/convert
	$(GO) test -run '^$$' -fuzz '^FuzzMail$$' -fuzzminimizetime 2s -fuzztime $(FUZZTIME) ./retrieval/convert
	$(GO) test -run '^$$' -fuzz '^FuzzHTML$$' -fuzzminimizetime 2s -fuzztime $(FUZZTIME) ./retrieval/convert
	$(GO) test -run '^$$' -fuzz '^FuzzPDF$$' -fuzzminimizetime 2s -fuzztime $(FUZZTIME) ./retrieval/convert
	$(GO) test -run '^$$' -fuzz '^FuzzExtract$$' -fuzztime $(FUZZTIME) ./retrieval/links
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeLinks$$' -fuzztime $(FUZZTIME) ./retrieval/store
	$(GO) test -run '^$$' -fuzz '^FuzzCheck$$' -fuzztime $(FUZZTIME) ./answer
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./retrieval/graph/layout
	$(GO) test -run '^$$' -fuzz '^FuzzCheck$$' -fuzztime $(FUZZTIME) ./retrieval/answer
	$(GO) test -run '^$$' -fuzz '^FuzzRender$$' -fuzztime $(FUZZTIME) ./server/web
	$(GO) test -run '^$$' -fuzz '^FuzzSetProps$$' -fuzztime $(FUZZTIME) ./retrieval/note
	$(GO) test -run '^$$' -fuzz '^FuzzPickWheel$$' -fuzztime $(FUZZTIME) ./models
	$(GO) test -run '^$$' -fuzz '^FuzzFrontMatter$$' -fuzztime $(FUZZTIME) ./retrieval/ingest
	$(GO) test -run '^$$' -fuzz '^FuzzParseDoc$$' -fuzztime $(FUZZTIME) ./retrieval/query
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./retrieval/config
	$(GO) test -run '^$$' -fuzz '^FuzzToolArgs$$' -fuzztime $(FUZZTIME) ./server
	$(GO) test -run '^$$' -fuzz '^FuzzMetadata$$' -fuzztime $(FUZZTIME) ./retrieval/packages
	$(GO) test -run '^$$' -fuzz '^FuzzRequirement$$' -fuzztime $(FUZZTIME) ./retrieval/packages
	$(GO) test -run '^$$' -fuzz '^FuzzPnpmDepPath$$' -fuzztime $(FUZZTIME) ./retrieval/packages
	$(GO) test -run '^$$' -fuzz '^FuzzNPMLock$$' -fuzztime $(FUZZTIME) ./retrieval/packages
	$(GO) test -run '^$$' -fuzz '^FuzzPackageResolved$$' -fuzztime $(FUZZTIME) ./retrieval/packages
	$(GO) test -run '^$$' -fuzz '^FuzzArchiveName$$' -fuzztime $(FUZZTIME) ./retrieval/packages
	$(GO) test -run '^$$' -fuzz '^FuzzTypeScript$$' -fuzztime $(FUZZTIME) ./retrieval/apidoc
	$(GO) test -run '^$$' -fuzz '^FuzzRust$$' -fuzztime $(FUZZTIME) ./retrieval/apidoc
	$(GO) test -run '^$$' -fuzz '^FuzzSwift$$' -fuzztime $(FUZZTIME) ./retrieval/apidoc
	$(GO) test -run '^$$' -fuzz '^FuzzPython$$' -fuzztime $(FUZZTIME) ./retrieval/apidoc
	$(GO) test -run '^$$' -fuzz '^FuzzReadme$$' -fuzztime $(FUZZTIME) ./retrieval/apidoc
	$(GO) test -run '^$$' -fuzz '^FuzzParsePackageURI$$' -fuzztime $(FUZZTIME) ./retrieval/ref
	$(GO) test -run '^$$' -fuzz '^FuzzSections$$' -fuzztime $(FUZZTIME) ./pkgdocs
	$(GO) test -run '^$$' -fuzz '^FuzzParseToken$$' -fuzztime $(FUZZTIME) ./server/auth
	$(GO) test -run '^$$' -fuzz '^FuzzParseBearer$$' -fuzztime $(FUZZTIME) ./server/auth
	$(GO) test -run '^$$' -fuzz '^FuzzParseTTL$$' -fuzztime $(FUZZTIME) ./server/auth
	$(GO) test -run '^$$' -fuzz '^FuzzEdit$$' -fuzztime $(FUZZTIME) ./server/install
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeTokCache$$' -fuzztime $(FUZZTIME) ./inference/onnx
	$(GO) test -run '^$$' -fuzz '^FuzzParseCached$$' -fuzztime $(FUZZTIME) ./inference/onnx
	$(GO) test -run '^$$' -fuzz '^FuzzIsName$$' -fuzztime $(FUZZTIME) ./retrieval/config/dirs

clean:
	rm -rf bin dist .cache/demo-home .cache/build

-include release.mk
-include models.mk
-include bench.mk
-include mcp.mk
-include reliability.mk
