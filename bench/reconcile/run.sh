#!/usr/bin/env bash
# The reconcile loop's speed (issue 29), whole process: a generated git
# repository of 10,000 files (9,800 Go files in 200 modules, 200 governing
# notes, one per module: governs src/mNNN/**), a branch touching 50 files
# (20 of them in module 000). Prints the median of 7 runs of:
#   gno affected --base main          (≤ 300 ms)
#   gno diff notes/spec000.md --base main   (20 governed changed files;
#                                      the warm figure is the Go benchmark)
#   gno reconcile mark (1,000 files)  (≤ 200 ms)
# The earlier-version store's size per 1,000 edits is BenchmarkVersions
# (retrieval/store).
# Usage: bench/reconcile/run.sh [workdir]   (needs git and go)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$(mktemp -d)}
export GNO_HOME=$work/home GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b
gno=$work/gno
(cd "$here" && go build -o "$gno" ./cmd/gno)
repo=$work/repo
rm -rf "$repo" "$GNO_HOME"
mkdir -p "$repo/notes"
for m in $(seq -f %03g 0 199); do
  mkdir -p "$repo/src/m$m"
  printf -- '---\ngoverns: [src/m%s/**]\nsystem: "[[system]]"\n---\n# Module %s\n\nWhat module %s does.\n' "$m" "$m" "$m" >"$repo/notes/spec$m.md"
  for f in $(seq -f %02g 0 48); do
    printf 'package m%s\n\n// F%s does thing %s of module %s.\nfunc F%s() int { return %d }\n' "$m" "$f" "$f" "$m" "$f" "$((10#$f))" >"$repo/src/m$m/f$f.go"
  done
done
git -C "$repo" init -q -b main && git -C "$repo" add -A && git -C "$repo" commit -qm base
git -C "$repo" checkout -qb feature
for f in $(seq -f %02g 0 19); do echo "// changed" >>"$repo/src/m000/f$f.go"; done
for m in $(seq -f %03g 1 30); do echo "// changed" >>"$repo/src/m$m/f00.go"; done
git -C "$repo" commit -qam feature
echo "files: $(git -C "$repo" ls-files | wc -l), changed: $(git -C "$repo" diff --name-only main... | wc -l)"
"$gno" init >/dev/null
"$gno" collection add "$repo" --name repo --code >/dev/null
start=$(date +%s)
"$gno" update >/dev/null
echo "sync: $(( $(date +%s) - start )) s"

median() { # command... : prints the median wall time in ms of 7 runs
  local ts=()
  for _ in 1 2 3 4 5 6 7; do
    local s=$(date +%s%N)
    "$@" >/dev/null
    ts+=($(( ($(date +%s%N) - s) / 1000000 )))
  done
  printf '%s\n' "${ts[@]}" | sort -n | sed -n 4p
}
echo "affected --base main: $(median "$gno" --no-daemon affected --base main --json) ms"
echo "diff spec000 --base main (20 files): $(median "$gno" --no-daemon diff repo/notes/spec000.md --base main --json) ms"
mapfile -t files < <(cd "$repo" && git ls-files 'src/m0[0-1]*/*.go' | head -1000 | sed "s|^|repo/|")
echo "mark ${#files[@]} files: $(median "$gno" reconcile mark --cursor bench "${files[@]}") ms"
uptime
