package postgres

import "context"

// CheckVersion is checkVersion, for the external tests: a server older
// than 16 cannot be started here.
var CheckVersion = checkVersion

// LockKey is the writer lock's advisory lock key, for the external tests.
const LockKey = lockKey

// OneForTest runs a one-row read through the store's read path (in ctx's
// snapshot when it carries one), for the snapshot tests.
func (s *Store) OneForTest(ctx context.Context, q string, dest ...any) error {
	return s.one(ctx, q, nil, dest...)
}

// SetMaxRows sets the top-k search's maxRows until the test ends.
func SetMaxRows(t interface{ Cleanup(func()) }, n int64) {
	old := maxRows
	maxRows = n
	t.Cleanup(func() { maxRows = old })
}

// SetFirstRead sets the top-k search's firstRead until the test ends.
func SetFirstRead(t interface{ Cleanup(func()) }, n int64) {
	old := firstRead
	firstRead = n
	t.Cleanup(func() { firstRead = old })
}

// SetUpgradeLockWait sets how long an upgrade waits for a table lock
// until the test ends.
func SetUpgradeLockWait(t interface{ Cleanup(func()) }, d string) {
	old := upgradeLockWait
	upgradeLockWait = d
	t.Cleanup(func() { upgradeLockWait = old })
}
