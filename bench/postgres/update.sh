#!/usr/bin/env bash
# gno update of an empty index on SQLite or PostgreSQL (issue 31): wall,
# gno's CPU and the server's CPU (the postmaster's own, its reaped and its
# live children's user+sys, from /proc), and the load before and after.
# Usage: bench/postgres/update.sh CORPUS sqlite|pg TAG [GNO_BINARY]
#   CORPUS   a folder of notes (SciFact as bench/beir writes it, or
#            /work/scale-data/corpus-10000)
#   pg       a fresh database b_TAG on the server `make pg` runs
#            (.cache/pg/url; its data directory gives the postmaster)
# LOGSQL=1 logs every statement with its duration in the server's log
# (.cache/pg/postgres.log), to see where the server's time goes.
set -uo pipefail
corpus=$1 kind=$2 tag=$3
here=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:-/tmp/gno-pgbench}
mkdir -p "$work"
bin=${4:-$work/gno}
[ -n "${4:-}" ] || (cd "$here" && go build -o "$bin" ./cmd/gno) || exit 1
pg=$here/.cache/pg
psql=$(find "$pg/venv" -path '*pginstall18/bin/psql' | head -1)
url=$(cat "$pg/url" 2>/dev/null)
home=$work/home-$tag
rm -rf "$home"
mkdir -p "$home/config"
printf 'version: 1\ncollections:\n    - name: c\n      path: %s\n' "$corpus" >"$home/config/default.yml"
if [ "$kind" = pg ]; then
	db=b_$tag
	"$psql" "$url" -qc "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null 2>&1
	[ -n "${LOGSQL:-}" ] && "$psql" "$url" -qc "ALTER DATABASE $db SET log_min_duration_statement = 0"
	export GNO_STORE_URL=${url%/*}/$db
fi
pm=$(head -1 "$pg/data/postmaster.pid" 2>/dev/null || echo 1)
srvcpu() {
	local t c
	t=$(awk '{print $14+$15+$16+$17}' /proc/"$pm"/stat)
	for c in $(pgrep -P "$pm"); do t=$((t + $(awk '{print $14+$15}' /proc/"$c"/stat 2>/dev/null || echo 0))); done
	echo "$t"
}
s0=$(srvcpu) l0=$(cut -d' ' -f1 /proc/loadavg)
GNO_HOME=$home /usr/bin/time -f "%e %U %S" -o "$work/time-$tag" "$bin" update --no-daemon >"$work/out-$tag" 2>&1 ||
	{ echo "$tag: gno update failed"; tail -5 "$work/out-$tag"; exit 1; }
sleep 1 # the server reaps the command's backends
s1=$(srvcpu) l1=$(cut -d' ' -f1 /proc/loadavg)
read -r e u s <"$work/time-$tag"
echo "$tag $kind wall=${e}s gno_cpu=$(echo "$u+$s" | bc)s server_cpu=$(echo "scale=2;($s1-$s0)/100" | bc)s load=$l0/$l1"
