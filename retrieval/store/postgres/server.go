package postgres

import (
	"context"
	"crypto/tls"
	"fmt"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Server describes the server, the index on it, who holds its writer
// lock and the read replica's delay (store.ServerInfo), for gno status
// and gno doctor. The replica's problems are reported in it, not as
// errors: the primary answers.
func (s *Store) Server(ctx context.Context) (*store.ServerInfo, error) {
	s.infoMu.Lock()
	defer s.infoMu.Unlock()
	if s.info != nil && time.Since(s.infoAt) < serverInfoFor {
		c := *s.info
		if c.Replica != nil {
			r := *c.Replica
			c.Replica = &r
		}
		return &c, nil
	}
	info, err := s.server(ctx)
	if err != nil {
		return nil, err
	}
	s.info, s.infoAt = info, time.Now()
	c := *info
	if c.Replica != nil {
		r := *c.Replica
		c.Replica = &r
	}
	return &c, nil
}

// serverInfoFor is how long Server's answer is reused: a search's meta
// reports the replica's delay without a round trip most of the time.
const serverInfoFor = time.Second

// server measures what Server reports.
func (s *Store) server(ctx context.Context) (*store.ServerInfo, error) {
	info := &store.ServerInfo{Server: s.Path()}
	var upgraded, subfill string
	err := s.pool.QueryRow(ctx, `SELECT current_setting('server_version'),
		coalesce((SELECT extversion FROM pg_extension WHERE extname = 'vector'), ''),
		coalesce((SELECT value FROM meta WHERE key = 'schema'), ''),
		coalesce((SELECT value FROM meta WHERE key = 'upgraded'), ''),
		coalesce((SELECT value FROM meta WHERE key = 'subfill'), '')`).Scan(&info.Version, &info.Vector, &info.Schema, &upgraded, &subfill)
	if err != nil {
		return nil, gnoerr.Wrap(gnoerr.Unavailable, err, "the index store %s does not answer", s.Path())
	}
	if upgraded != "" {
		// The last upgrade (migrate): doctor shows when and how long.
		info.Schema += " (upgraded " + upgraded + ")"
	}
	if subfill != "" {
		// fillSubs stopped short: searches are exact, prune less.
		info.Schema += "; the blocks' sub-bounds are not all filled yet (the next open of the index resumes)"
	}
	info.TLS = connTLS(ctx, s.pool)
	var app, addr string
	var since time.Time
	err = s.pool.QueryRow(ctx, `SELECT coalesce(a.application_name, ''), coalesce(host(a.client_addr), 'local'), a.backend_start
		FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND l.classid::bigint = $1 AND l.objid::bigint = $2 AND l.objsubid = 1 AND l.granted`, int64(uint64(lockKey)>>32), lockKey&0xffffffff).Scan(&app, &addr, &since)
	if err == nil {
		if app == "" {
			app = "a session"
		}
		info.LockHolder = fmt.Sprintf("%s from %s, connected since %s", app, addr, since.UTC().Format(time.RFC3339))
	}
	if s.rpool != nil {
		info.Replica = s.replicaInfo(ctx)
	}
	return info, nil
}

// replicaInfo measures the read replica: its version, TLS, whether it is
// still a standby, and how far behind the primary it is.
func (s *Store) replicaInfo(ctx context.Context) *store.ReplicaInfo {
	r := &store.ReplicaInfo{Server: store.Redact(s.readURL)}
	var lsn string
	var age float64
	err := s.rpool.QueryRow(ctx, `SELECT current_setting('server_version'), pg_is_in_recovery(),
		coalesce(pg_last_wal_replay_lsn()::text, ''),
		coalesce(extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8, 0)`).Scan(&r.Version, &r.Standby, &lsn, &age)
	if err != nil {
		r.Problem = "the read replica does not answer"
		return r
	}
	r.TLS = connTLS(ctx, s.rpool)
	if !r.Standby || lsn == "" {
		return r // promoted: it is a primary of its own, nothing to replay
	}
	if err := s.pool.QueryRow(ctx, "SELECT greatest(pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn), 0)::bigint", lsn).Scan(&r.LagBytes); err != nil {
		r.Problem = "the primary does not say its position in the WAL"
		return r
	}
	if r.LagBytes > 0 {
		r.LagSeconds = max(age, 0)
	}
	return r
}

// lockAppName names the writer lock's session in pg_stat_activity, for
// the lock holder gno doctor shows.
func lockAppName(host string, pid int) string {
	return fmt.Sprintf("gno writer on %s, pid %d", host, pid)
}

// connTLS is the TLS version and cipher of a connection of pool as this
// process sees it ("" in clear text). The client's side is what counts:
// a TLS-terminating proxy in front of the server (a cloud's, a pooler)
// encrypts the network the server's own pg_stat_ssl does not see.
func connTLS(ctx context.Context, pool *pgxpool.Pool) string {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return ""
	}
	defer c.Release()
	tc, ok := c.Conn().PgConn().Conn().(*tls.Conn)
	if !ok {
		return ""
	}
	st := tc.ConnectionState()
	return tls.VersionName(st.Version) + " " + tls.CipherSuiteName(st.CipherSuite)
}

// checkVector refuses a pgvector older than 0.7: vectors are indexed and
// searched as halfvec (vsearch.go), which 0.7 brought; 0.8's iterative
// scan only makes filtered searches complete sooner (postgres.go's
// AfterConnect tolerates its absence).
func (s *Store) checkVector(ctx context.Context) error {
	var v string
	if err := s.pool.QueryRow(ctx, "SELECT extversion FROM pg_extension WHERE extname = 'vector'").Scan(&v); err != nil {
		return fmt.Errorf("open index: read pgvector's version: %w", err)
	}
	var major, minor int
	if _, err := fmt.Sscanf(v, "%d.%d", &major, &minor); err != nil || major == 0 && minor < 7 {
		return gnoerr.New(gnoerr.Unavailable, "PostgreSQL at %s has pgvector %s: gno needs 0.7 or later (halfvec vectors and their HNSW index): ALTER EXTENSION vector UPDATE after installing a newer pgvector", s.Path(), v)
	}
	return nil
}

// checkVersion refuses a server older than minServer (num is its
// server_version_num).
func checkVersion(num int, name string) error {
	if num < minServer {
		return gnoerr.New(gnoerr.Unavailable, "PostgreSQL at %s is version %d.%d: gno needs 16 or later", name, num/10000, num%10000)
	}
	return nil
}
