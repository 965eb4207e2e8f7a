package postgres

// CheckVersion is checkVersion, for the external tests: a server older
// than 16 cannot be started here.
var CheckVersion = checkVersion

// LockKey is the writer lock's advisory lock key, for the external tests.
const LockKey = lockKey
