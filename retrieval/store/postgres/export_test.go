package postgres

// CheckVersion is checkVersion, for the external tests: a server older
// than 16 cannot be started here.
var CheckVersion = checkVersion
