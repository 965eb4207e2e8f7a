package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Background jobs.
//
// A job (a sync, an embed) runs in the server that started it, and
// clients poll its status from any server of the index: each server
// records its jobs' public state here (server/jobs). The table is created
// by the first job recorded; an index without it has no jobs.
const jobsSchema = `
CREATE TABLE IF NOT EXISTS jobs(
	id TEXT PRIMARY KEY,
	running INTEGER NOT NULL,
	created INTEGER NOT NULL,
	updated INTEGER NOT NULL,
	state TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS jobs_created ON jobs(created);
`

// SharedJob is one background job as the index keeps it for every server:
// its public state as JSON (the jobs package's Job), whether it runs, and
// when it started and its server last wrote it (milliseconds).
type SharedJob struct {
	ID               string
	Running          bool
	Created, Updated time.Time
	State            []byte
}

// msOf is t in Unix milliseconds.
func msOf(t time.Time) int64 { return t.UnixMilli() }

// PutJob records j, replacing its earlier record.
func (s *Store) PutJob(ctx context.Context, j SharedJob) error {
	if _, err := s.db.ExecContext(ctx, jobsSchema); err != nil {
		return fmt.Errorf("record job: %w", err)
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO jobs(id, running, created, updated, state) VALUES(?,?,?,?,?)
		ON CONFLICT(id) DO UPDATE SET running = excluded.running, updated = excluded.updated, state = excluded.state`,
		j.ID, j.Running, msOf(j.Created), msOf(j.Updated), string(j.State))
	if err != nil {
		return fmt.Errorf("record job: %w", err)
	}
	return nil
}

// Job returns the job with id; false when the index has none.
func (s *Store) Job(ctx context.Context, id string) (SharedJob, bool, error) {
	js, err := s.jobs(ctx, "WHERE id = ?", id)
	if err != nil || len(js) == 0 {
		return SharedJob{}, false, err
	}
	return js[0], true, nil
}

// Jobs returns the running jobs and the newest limit finished ones,
// newest first.
func (s *Store) Jobs(ctx context.Context, limit int) ([]SharedJob, error) {
	return s.jobs(ctx, "WHERE running = 1 OR id IN (SELECT id FROM jobs WHERE running = 0 ORDER BY created DESC LIMIT ?) ORDER BY created DESC", limit)
}

func (s *Store) jobs(ctx context.Context, where string, args ...any) ([]SharedJob, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT id, running, created, updated, state FROM jobs "+where, args...)
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return nil, nil
		}
		return nil, fmt.Errorf("read jobs: %w", err)
	}
	defer rows.Close()
	var out []SharedJob
	for rows.Next() {
		var j SharedJob
		var c, u int64
		var st string
		if err := rows.Scan(&j.ID, &j.Running, &c, &u, &st); err != nil {
			return nil, fmt.Errorf("read jobs: %w", err)
		}
		j.Created, j.Updated, j.State = time.UnixMilli(c).UTC(), time.UnixMilli(u).UTC(), []byte(st)
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read jobs: %w", err)
	}
	return out, nil
}

// DropJobs forgets the finished jobs last written before before, the
// oldest finished beyond keep, and running jobs not rewritten since
// before (a running job is rewritten at least every minute: its server
// died).
func (s *Store) DropJobs(ctx context.Context, before time.Time, keep int) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM jobs WHERE (running = 1 AND updated < ?1) OR (running = 0 AND (updated < ?1
		OR id NOT IN (SELECT id FROM jobs WHERE running = 0 ORDER BY created DESC LIMIT ?2)))`, msOf(before), keep)
	if err != nil && !strings.Contains(err.Error(), "no such table") {
		return fmt.Errorf("drop old jobs: %w", err)
	}
	return nil
}
