-- Recall and time of the HNSW index of a Postgres index's vectors against
-- an exact scan (issue 31): 200 stored vectors as queries, the exact top 10
-- against the index's 30 candidates (what SearchVectors asks for k = 10).
-- psql "postgres://…/DB" -v model="'bge-small-en-v1.5-q'" -v dims=384 -f bench/postgres/recall.sql
SET hnsw.iterative_scan = relaxed_order;
CREATE TEMP TABLE q AS SELECT chunk_id AS qid, vec AS qv FROM vectors ORDER BY md5(chunk_id::text) LIMIT 200;
CREATE TEMP TABLE ex AS SELECT q.qid, e.chunk_id FROM q CROSS JOIN LATERAL (SELECT chunk_id FROM vectors ORDER BY vec <=> q.qv LIMIT 10) e;
SET hnsw.ef_search = 64;
\timing on
CREATE TEMP TABLE a64 AS SELECT q.qid, a.chunk_id FROM q CROSS JOIN LATERAL (SELECT chunk_id FROM vectors WHERE model = :model
	ORDER BY (vec::halfvec(:dims)) <=> (q.qv::halfvec(:dims)) LIMIT 30) a;
SET hnsw.ef_search = 40;
CREATE TEMP TABLE a40 AS SELECT q.qid, a.chunk_id FROM q CROSS JOIN LATERAL (SELECT chunk_id FROM vectors WHERE model = :model
	ORDER BY (vec::halfvec(:dims)) <=> (q.qv::halfvec(:dims)) LIMIT 30) a;
CREATE TEMP TABLE ex30 AS SELECT q.qid, e.chunk_id FROM q CROSS JOIN LATERAL (SELECT chunk_id FROM vectors ORDER BY vec <=> q.qv LIMIT 30) e;
\timing off
SELECT count(*)::float / (SELECT count(*) FROM ex) AS recall10_ef64 FROM ex JOIN a64 USING (qid, chunk_id);
SELECT count(*)::float / (SELECT count(*) FROM ex) AS recall10_ef40 FROM ex JOIN a40 USING (qid, chunk_id);
