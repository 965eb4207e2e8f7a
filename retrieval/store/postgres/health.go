package postgres

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// Check checks that the BM25 statistics agree with the rows (what the
// SQLite store's integrity checks are to its FTS index). It returns the
// problems found.
func (s *Store) Check(ctx context.Context) ([]string, error) {
	return readIn(ctx, s, func(ctx context.Context) ([]string, error) {
		var problems []string
		for ix := range 2 {
			tsvCol, lenCol := column(ix)
			var rows, tokens, haveRows, haveTokens int64
			if err := s.one(ctx, "SELECT rows, tokens FROM fts_stats WHERE ix = $1", []any{ix}, &rows, &tokens); err != nil {
				return nil, fmt.Errorf("check index: %w", err)
			}
			if err := s.one(ctx, "SELECT count(*), coalesce(sum("+lenCol+"), 0) FROM chunks WHERE "+tsvCol+" IS NOT NULL", nil, &haveRows, &haveTokens); err != nil {
				return nil, fmt.Errorf("check index: %w", err)
			}
			if rows != haveRows || tokens != haveTokens {
				problems = append(problems, "index "+strconv.Itoa(ix)+": statistics count "+strconv.FormatInt(rows, 10)+" rows of "+strconv.FormatInt(tokens, 10)+
					" tokens, the chunks hold "+strconv.FormatInt(haveRows, 10)+" of "+strconv.FormatInt(haveTokens, 10)+": run gno update --rebuild")
			}
		}
		return problems, nil
	})
}

// QuickCheck is the bounded check `gno status` runs: the server answers.
func (s *Store) QuickCheck(ctx context.Context, budget time.Duration) string {
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	if err := s.pool.Ping(ctx); err != nil {
		return "the index store " + s.Path() + " does not answer"
	}
	return ""
}
