# Benchmark targets; the top-level Makefile includes this file.
#
#   make bench        all datasets in ../shared/eval, synthetic corpora of
#                     1k/10k/50k documents, every mode, qmd side by side
#   make bench-quick  SciFact and a 1k synthetic corpus with capped query
#                     sets: under 5 minutes on 2 cores
#
# Each run appends a section to bench/RESULTS.md and writes
# bench/results/{full,quick}.json and bench/results/latency-{full,quick}.png.
# BENCH_FLAGS passes more flags to gnobench, e.g.
#   make bench-quick BENCH_FLAGS='-modes search -qmd=false'
# See bench/README.md for what is measured and how.

BENCH_FLAGS ?=
GNOBENCH ?= go run ./bench/cmd/gnobench
# Reuse the Makefile's build of gno when there is one; gnobench builds
# ./cmd/gno itself otherwise.
BENCH_DEPS := $(if $(BIN),build)
BENCH_GNO  := $(if $(BIN),-gno $(BIN))

.PHONY: bench bench-quick

bench: $(BENCH_DEPS)
	$(GNOBENCH) $(BENCH_GNO) $(BENCH_FLAGS)

bench-quick: $(BENCH_DEPS)
	$(GNOBENCH) -quick $(BENCH_GNO) $(BENCH_FLAGS)
