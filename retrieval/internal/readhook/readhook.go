// Package readhook lets tests stop a read between two of its statements:
// the store calls Before ahead of every read statement, and a test that set
// a hook changes the index there through a real writer, making a race
// between a read and a sync deterministic. Production code never sets it;
// unset, Before costs one atomic load.
//
// It must not import anything of gno.
package readhook

import (
	"context"
	"sync/atomic"
)

var hook atomic.Pointer[func(context.Context)]

// Set installs f, called before every read statement of every store, and
// returns the function that removes it. Tests only.
func Set(f func(ctx context.Context)) (restore func()) {
	hook.Store(&f)
	return func() { hook.Store(nil) }
}

// Before runs the hook, if any, with the context of the statement about to
// run.
func Before(ctx context.Context) {
	if f := hook.Load(); f != nil {
		(*f)(ctx)
	}
}
