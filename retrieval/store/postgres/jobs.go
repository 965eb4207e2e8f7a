package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/gnosearch/gno/retrieval/store"
)

// Background jobs (store/jobs.go): each server records its jobs' public
// state, so a client polls a job from any server of the index.
const jobsSchema = `
CREATE TABLE IF NOT EXISTS jobs(
	id TEXT PRIMARY KEY,
	running BOOLEAN NOT NULL,
	created BIGINT NOT NULL,
	updated BIGINT NOT NULL,
	state TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS jobs_created ON jobs(created);
`

// PutJob records j, replacing its earlier record.
func (s *Store) PutJob(ctx context.Context, j store.SharedJob) error {
	ctx = store.Bookkeeping(ctx)
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("record job: %w", err)
	}
	defer tx.Rollback(ctx)
	// The table's first writers would collide in the catalog: the
	// schema's lock orders them, as at open.
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey+1); err != nil {
		return fmt.Errorf("record job: %w", err)
	}
	if _, err := tx.Exec(ctx, jobsSchema); err != nil {
		return fmt.Errorf("record job: %w", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO jobs(id, running, created, updated, state) VALUES($1,$2,$3,$4,$5)
		ON CONFLICT(id) DO UPDATE SET running = excluded.running, updated = excluded.updated, state = excluded.state`,
		j.ID, j.Running, j.Created.UnixMilli(), j.Updated.UnixMilli(), string(j.State)); err != nil {
		return fmt.Errorf("record job: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("record job: %w", err)
	}
	return nil
}

// Job returns the job with id; false when the index has none.
func (s *Store) Job(ctx context.Context, id string) (store.SharedJob, bool, error) {
	js, err := s.jobs(ctx, "WHERE id = $1", id)
	if err != nil || len(js) == 0 {
		return store.SharedJob{}, false, err
	}
	return js[0], true, nil
}

// Jobs returns the running jobs and the newest limit finished ones,
// newest first.
func (s *Store) Jobs(ctx context.Context, limit int) ([]store.SharedJob, error) {
	return s.jobs(ctx, "WHERE running OR id IN (SELECT id FROM jobs WHERE NOT running ORDER BY created DESC LIMIT $1) ORDER BY created DESC", limit)
}

func (s *Store) jobs(ctx context.Context, where string, args ...any) ([]store.SharedJob, error) {
	rows, err := s.pool.Query(ctx, "SELECT id, running, created, updated, state FROM jobs "+where, args...)
	if err != nil {
		if noTable(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("read jobs: %w", err)
	}
	defer rows.Close()
	var out []store.SharedJob
	for rows.Next() {
		var j store.SharedJob
		var c, u int64
		var st string
		if err := rows.Scan(&j.ID, &j.Running, &c, &u, &st); err != nil {
			return nil, fmt.Errorf("read jobs: %w", err)
		}
		j.Created, j.Updated, j.State = time.UnixMilli(c).UTC(), time.UnixMilli(u).UTC(), []byte(st)
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		if noTable(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("read jobs: %w", err)
	}
	return out, nil
}

// DropJobs forgets the finished jobs last written before before, the
// oldest finished beyond keep, and running jobs not rewritten since
// before (a running job is rewritten at least every minute: its server
// died).
func (s *Store) DropJobs(ctx context.Context, before time.Time, keep int) error {
	ctx = store.Bookkeeping(ctx)
	_, err := s.pool.Exec(ctx, `DELETE FROM jobs WHERE (running AND updated < $1) OR (NOT running AND (updated < $1
		OR id NOT IN (SELECT id FROM jobs WHERE NOT running ORDER BY created DESC LIMIT $2)))`, before.UnixMilli(), keep)
	if err != nil && !noTable(err) {
		return fmt.Errorf("drop old jobs: %w", err)
	}
	return nil
}
