#!/bin/bash
# stdlib.sh: what indexing the standard libraries costs (bench/RESULTS.md).
# Cold BM25 add of Go's and of Python's standard library, each in a fresh
# index; a second project sharing them; the unchanged re-run; and, with
# EMBED_SECONDS set, how many chunks the embedder does in that time.
#   go build -o /tmp/gno ./cmd/gno && GNO=/tmp/gno EMBED_SECONDS=90 bench/stdlib.sh
set -u
G=${GNO:-gno}
export GNO_MODELS_DIR=${GNO_MODELS_DIR:-$HOME/.cache/gno/models}
unset VIRTUAL_ENV
root=$(mktemp -d /tmp/gno-stdlib-bench.XXXX)
trap 'rm -rf "$root"' EXIT
for p in go1 go2; do mkdir -p "$root/$p"; printf 'module example.com/%s\n\ngo 1.21\n' "$p" > "$root/$p/go.mod"; done
for p in py1 py2; do mkdir -p "$root/$p"; : > "$root/$p/requirements.txt"; done
run() { # prints the add's own line: its duration is the run's, model loading aside
	"$G" packages add "$@" 2>&1 | tail -1
}
echo "go $(go env GOVERSION), $(python3 -V), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for eco in go py; do
	export GNO_HOME=$root/home-$eco
	echo "cold:      $(run --no-embed "$root/${eco}1")"
	echo "shared:    $(run --no-embed "$root/${eco}2")"
	for i in 1 2 3 4 5; do echo "unchanged: $(run --no-embed "$root/${eco}1")"; done
	db=$GNO_HOME/data/default/packages/index.sqlite
	echo "units: $(sqlite3 "$db" 'select count(*) from documents') chunks: $(sqlite3 "$db" 'select count(*) from chunks')"
	if [ -n "${EMBED_SECONDS:-}" ]; then
		timeout "$EMBED_SECONDS" "$G" packages add --embed-stdlib "$root/${eco}1" > /dev/null 2>&1
		echo "embedded in ${EMBED_SECONDS} s (model load included): $(sqlite3 "$db" 'select count(*) from vectors') chunks"
	fi
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
