# Reliability harnesses (package reliability/): the full versions, one
# target each. Short versions run inside `go test ./...`. Add -race with
# RACE=-race (the harness then builds gno with -race too).
RACE       ?=
RELTIMEOUT ?= 60m
REL        := $(GO) test $(RACE) -count=1 -v -timeout $(RELTIMEOUT) ./reliability -full

.PHONY: reliability crash concurrency soak soak-tls hostile diskfault

reliability: crash concurrency soak hostile diskfault

# SIGKILL gno update / gno embed / gno_capture / gno daemon over 30 seeds (200+ kills),
# and gno reconcile mark (30 kills).
crash:
	$(REL) -run '^(TestCrash|TestCrashMark)$$'

# Readers of every mode during syncs, embeds and writes; racing writers.
concurrency:
	$(GO) test -race -count=1 -v -timeout $(RELTIMEOUT) ./reliability -full -run '^(TestConcurrency|TestConcurrencyInProcess|TestWritersSerialise)$$'

# 20k mixed MCP requests over stdio and loopback HTTP while syncs run.
soak:
	$(REL) -run '^(TestSoak|TestNoGoroutineLeak)$$'

# The soak with its HTTP server in the sharing mode: HTTPS (pinned
# self-signed certificate) and a read token, on 127.0.0.2 only.
soak-tls:
	$(REL) -run '^TestSoak$$' -tls

# Path traversal, oversized and nested input, chunker/YAML bombs, FTS5 injection.
hostile:
	$(REL) -run '^(TestHostile|TestPromptInjection)'

# Full disk (tmpfs, needs root), read-only index, corrupt index, damaged model.
diskfault:
	$(REL) -run '^(TestDiskFull|TestDiskFullWrite|TestReadOnlyIndex|TestCorruptIndex|TestTruncatedModel)$$'
