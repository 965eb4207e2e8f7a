package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CountsFile is the status counts' cache in a SQLite index's folder: a
// file beside the database, not a row in it, so `gno status` (a reader)
// never takes the writer's lock to keep it.
const CountsFile = "status-counts.json"

func (s *Store) countsPath() string { return filepath.Join(filepath.Dir(s.path), CountsFile) }

// CountsCache returns the cached status counts, nil when there are none.
func (s *Store) CountsCache(ctx context.Context) ([]byte, error) {
	b, err := os.ReadFile(s.countsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read status counts: %w", err)
	}
	return b, nil
}

// PutCountsCache replaces the cached status counts whole (a temporary
// file renamed over the old one: a kill leaves the old file or the new).
func (s *Store) PutCountsCache(ctx context.Context, body []byte) error {
	p := s.countsPath()
	f, err := os.CreateTemp(filepath.Dir(p), CountsFile+".*")
	if err != nil {
		return fmt.Errorf("save status counts: %w", err)
	}
	_, werr := f.Write(body)
	cerr := f.Close()
	if werr == nil && cerr == nil {
		if werr = os.Rename(f.Name(), p); werr == nil {
			return nil
		}
	}
	os.Remove(f.Name())
	return fmt.Errorf("save status counts: %w", errors.Join(werr, cerr))
}
