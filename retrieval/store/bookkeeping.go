package store

import "context"

// bookkeepingKey marks a context whose writes are bookkeeping.
type bookkeepingKey struct{}

// Bookkeeping marks the writes made with the returned context as
// bookkeeping: caches, progress, job records and token use, which no read
// of the index depends on. A Postgres store beside a replica does not
// then read its own writes from the primary after them (read-your-writes
// is for what a user or an agent changed: syncs, tags, notes, vectors).
// SQLite has one file and ignores the mark.
func Bookkeeping(ctx context.Context) context.Context {
	return context.WithValue(ctx, bookkeepingKey{}, true)
}

// IsBookkeeping reports whether ctx was marked by Bookkeeping.
func IsBookkeeping(ctx context.Context) bool {
	b, _ := ctx.Value(bookkeepingKey{}).(bool)
	return b
}
