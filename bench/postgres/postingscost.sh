#!/usr/bin/env bash
# The server CPU of writing an index's postings again in four layouts (issue 31,
# bench/RESULTS.md "a bounded top-k BM25, the postings' write cost measured"):
# rows with the covering key (today), rows without INCLUDE, the heap alone, and
# one row per (term, flush) of arrays, and fts_blocks as schema 4 writes it
# (arrays with the block's range, count and bounds; a non-unique index on
# (ix, term)). Each is written in flushes of ~1,000
# documents, sorted as gno sends them, one psql run each; the server's CPU from
# /proc as update.sh reads it. Nothing else may use the server meanwhile.
# Usage: bench/postgres/postingscost.sh DATABASE   (an index made by update.sh: b_TAG,
# schema 3 (fts_postings) or 4 (fts_blocks): the postings are read from either)
cd "$(dirname "$0")/../.." || exit 1
pg=.cache/pg
psql=$(find "$pg/venv" -path '*pginstall18/bin/psql' | head -1)
url=$(cat $pg/url); db=${url%/*}/${1:?usage: postingscost.sh DATABASE}
pm=$(head -1 "$pg/data/postmaster.pid")
srvcpu() {
	local t c
	t=$(awk '{print $14+$15+$16+$17}' /proc/"$pm"/stat)
	for c in $(pgrep -P "$pm"); do t=$((t + $(awk '{print $14+$15}' /proc/"$c"/stat 2>/dev/null || echo 0))); done
	echo "$t"
}
run() { # name sql
	local s0 s1
	s0=$(srvcpu); "$psql" "$db" -qc "$2" >/dev/null || echo "FAILED $1"; sleep 1; s1=$(srvcpu)
	echo "$1 server_cpu=$(echo "scale=2;($s1-$s0)/100" | bc)s load=$(cut -d' ' -f1 /proc/loadavg)"
}
src=fts_postings
[ "$("$psql" "$db" -Atc "SELECT to_regclass('fts_postings') IS NULL")" = t ] &&
	src="(SELECT b.ix, b.term, u.chunk_id, u.wf, u.len FROM fts_blocks b, unnest(b.ids, b.wfs, b.lens) AS u(chunk_id, wf, len)) p"
"$psql" "$db" -qc "DROP TABLE IF EXISTS x_src, x_rows, x_heap, x_nocov, x_arr, x_arrsrc, x_blk, x_blksrc; CREATE UNLOGGED TABLE x_src AS SELECT ix, term, chunk_id, wf, len, ((chunk_id >> 16) / 1000)::int AS f FROM $src" -c "VACUUM ANALYZE x_src"
"$psql" "$db" -qc "SELECT count(*), count(DISTINCT f), (SELECT count(*) FROM (SELECT DISTINCT ix, term, f FROM x_src) d) AS term_flush_pairs FROM x_src"
"$psql" "$db" -qc "CREATE TABLE x_rows(ix SMALLINT NOT NULL, term TEXT COLLATE \"C\" NOT NULL, chunk_id BIGINT NOT NULL, wf DOUBLE PRECISION NOT NULL, len INTEGER NOT NULL, PRIMARY KEY(ix, term, chunk_id) INCLUDE (wf, len));
 CREATE TABLE x_heap(ix SMALLINT NOT NULL, term TEXT COLLATE \"C\" NOT NULL, chunk_id BIGINT NOT NULL, wf DOUBLE PRECISION NOT NULL, len INTEGER NOT NULL);
 CREATE TABLE x_nocov(ix SMALLINT NOT NULL, term TEXT COLLATE \"C\" NOT NULL, chunk_id BIGINT NOT NULL, wf DOUBLE PRECISION NOT NULL, len INTEGER NOT NULL, PRIMARY KEY(ix, term, chunk_id));
 CREATE TABLE x_arr(ix SMALLINT NOT NULL, term TEXT COLLATE \"C\" NOT NULL, f INTEGER NOT NULL, chunk_ids BIGINT[] NOT NULL, wf DOUBLE PRECISION[] NOT NULL, lens INTEGER[] NOT NULL, PRIMARY KEY(ix, term, f));
 CREATE UNLOGGED TABLE x_arrsrc AS SELECT ix, term, f, array_agg(chunk_id ORDER BY chunk_id) AS c, array_agg(wf ORDER BY chunk_id) AS w, array_agg(len ORDER BY chunk_id) AS l FROM x_src GROUP BY ix, term, f;
 CREATE TABLE x_blk(ix SMALLINT NOT NULL, term TEXT COLLATE \"C\" NOT NULL, first BIGINT NOT NULL, last BIGINT NOT NULL, n INTEGER NOT NULL, max_wf DOUBLE PRECISION NOT NULL, min_lr DOUBLE PRECISION NOT NULL, ids BIGINT[] NOT NULL, wfs DOUBLE PRECISION[] NOT NULL, lens INTEGER[] NOT NULL);
 CREATE INDEX ON x_blk(ix, term);
 CREATE UNLOGGED TABLE x_blksrc AS SELECT ix, term, f, min(chunk_id) AS a, max(chunk_id) AS z, count(*)::int AS n, max(wf) AS mw, min(len::float8 / wf) AS ml, array_agg(chunk_id ORDER BY chunk_id) AS c, array_agg(wf ORDER BY chunk_id) AS w, array_agg(len ORDER BY chunk_id) AS l FROM x_src GROUP BY ix, term, f" -c "VACUUM ANALYZE x_arrsrc, x_blksrc"
flushes() { # target select-list source
	local q=""
	for f in $("$psql" "$db" -Atc "SELECT DISTINCT f FROM x_src ORDER BY 1"); do q="$q INSERT INTO $1 SELECT $2 FROM $3 WHERE f = $f ORDER BY ix, term$4;"; done
	echo "$q"
}
for i in 1 2; do
run "read-only (rows, sorted per flush)" "$(flushes x_heap 'ix, term, chunk_id, wf, len' x_src ', chunk_id' | sed 's/INSERT INTO x_heap SELECT/SELECT count(*) FROM (SELECT/g; s/, chunk_id;/, chunk_id) s;/g')"
run "rows: heap + covering PK (today)" "$(flushes x_rows 'ix, term, chunk_id, wf, len' x_src ', chunk_id')"
run "rows: heap only" "$(flushes x_heap 'ix, term, chunk_id, wf, len' x_src ', chunk_id')"
run "rows: heap + PK without INCLUDE" "$(flushes x_nocov 'ix, term, chunk_id, wf, len' x_src ', chunk_id')"
run "arrays per (term, flush): heap + PK" "$(flushes x_arr 'ix, term, f, c, w, l' x_arrsrc '')"
run "fts_blocks (schema 4): heap + index (ix, term)" "$(flushes x_blk 'ix, term, a, z, n, mw, ml, c, w, l' x_blksrc '')"
"$psql" "$db" -qc "TRUNCATE x_rows, x_heap, x_nocov, x_arr, x_blk" -c "CHECKPOINT"
done
"$psql" "$db" -qc "SELECT relname, pg_size_pretty(pg_total_relation_size(oid)) FROM pg_class WHERE relname IN ('fts_postings', 'fts_blocks')"
"$psql" "$db" -qc "DROP TABLE x_src, x_rows, x_heap, x_nocov, x_arr, x_arrsrc, x_blk, x_blksrc"
