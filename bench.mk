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
#
#   make bench-scale  the scale curve: generated corpora of SIZES documents
#                     (default 10k,100k,1m; 1m takes about an hour on 2
#                     cores) under SCALE_DATA (not the repo), BM25 only;
#                     appends a table to bench/RESULTS.md and writes
#                     bench/results/scale.{json,png}

BENCH_FLAGS ?=
GNOBENCH ?= go run ./bench/cmd/gnobench
# Reuse the Makefile's build of gno when there is one; gnobench builds
# ./cmd/gno itself otherwise.
BENCH_DEPS := $(if $(BIN),build)
BENCH_GNO  := $(if $(BIN),-gno $(BIN))

.PHONY: bench bench-quick bench-scale

SIZES ?= 10k,100k,1m
SCALE_DATA ?= /tmp/gno-scale
SCALE_FLAGS ?=

bench: $(BENCH_DEPS)
	$(GNOBENCH) $(BENCH_GNO) $(BENCH_FLAGS)

bench-quick: $(BENCH_DEPS)
	$(GNOBENCH) -quick $(BENCH_GNO) $(BENCH_FLAGS)

bench-scale: $(BENCH_DEPS)
	go run ./bench/cmd/gnoscale -sizes $(SIZES) -data $(SCALE_DATA) $(BENCH_GNO) $(SCALE_FLAGS)
