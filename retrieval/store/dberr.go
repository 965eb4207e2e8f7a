package store

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"regexp"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"modernc.org/sqlite"
)

// No database text reaches a user or an agent: the front ends print
// gnoerr.Public, which hides the errors IsDatabaseError recognises.
func init() { gnoerr.HideText(IsDatabaseError) }

// dbText matches the messages database/sql and the SQLite driver make
// without a type to recognise them by ("sql: Scan error ...", "SQL logic
// error", "database is locked (5) (SQLITE_BUSY)").
var dbText = regexp.MustCompile(`(^|[^A-Za-z])sql: |SQL logic error|SQLITE_|database is locked|database disk image is malformed|no such (table|column)`)

// IsDatabaseError reports whether err carries the database's own text:
// an error of database/sql or of the SQLite driver, however wrapped.
func IsDatabaseError(err error) bool {
	if err == nil {
		return false
	}
	var se *sqlite.Error
	if errors.As(err, &se) || errors.Is(err, sql.ErrNoRows) || errors.Is(err, sql.ErrTxDone) ||
		errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) {
		return true
	}
	return dbText.MatchString(err.Error())
}
