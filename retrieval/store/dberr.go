package store

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"regexp"
	"sync"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"modernc.org/sqlite"
)

// No database text reaches a user or an agent: the front ends print
// gnoerr.Public, which hides the errors IsDatabaseError recognises.
func init() {
	gnoerr.HideText(IsDatabaseError)
	gnoerr.ExplainText(Explain)
}

// SQLite's primary result codes a user can act on (sqlite3.h).
const (
	sqliteBusy     = 5
	sqliteLocked   = 6
	sqliteReadOnly = 8
	sqliteIOErr    = 10
	sqliteCorrupt  = 11
	sqliteFull     = 13
	sqliteCantOpen = 14
	sqliteNotADB   = 26
)

// Explain says in a user's words what a database error means when its
// cause is the disk, the folder's permissions, a damaged file or another
// process: the user can act on those. Other database errors give "" (the
// front ends then say only that it is internal, and log the detail).
func Explain(err error) string {
	code := 0
	var se *sqlite.Error
	if errors.As(err, &se) {
		code = se.Code() & 0xff
	} else if err != nil {
		for _, x := range explainText {
			if x.re.MatchString(err.Error()) {
				code = x.code
				break
			}
		}
	}
	switch code {
	case sqliteFull:
		return "the disk holding the index is full: nothing was written; free some space and run it again"
	case sqliteReadOnly:
		return "the index is read-only: its folder or database file cannot be written"
	case sqliteCantOpen:
		return "the index database cannot be opened: check that its folder exists and can be read and written"
	case sqliteCorrupt, sqliteNotADB:
		return "the index database is damaged: run gno doctor"
	case sqliteBusy, sqliteLocked:
		return "the index is busy in another process: try again"
	case sqliteIOErr:
		return "a disk error while reading or writing the index"
	}
	return ""
}

// explainText recognises the same causes by the driver's text, for errors
// that reach here as text only.
// The order is the order of the checks, so a text naming two causes is
// always explained the same way.
var explainText = []struct {
	code int
	re   *regexp.Regexp
}{
	{sqliteFull, regexp.MustCompile(`database or disk is full|SQLITE_FULL`)},
	{sqliteReadOnly, regexp.MustCompile(`readonly database|SQLITE_READONLY`)},
	{sqliteCorrupt, regexp.MustCompile(`database disk image is malformed|file is not a database|SQLITE_CORRUPT|SQLITE_NOTADB`)},
	{sqliteBusy, regexp.MustCompile(`database is locked|SQLITE_BUSY|SQLITE_LOCKED`)},
}

// dbText matches the messages database/sql and the SQLite driver make
// without a type to recognise them by ("sql: Scan error ...", "SQL logic
// error", "database is locked (5) (SQLITE_BUSY)").
var dbText = regexp.MustCompile(`(^|: )sql: |SQL logic error|\(SQLSTATE [0-9A-Z]{5}\)|failed to connect to |SQLITE_|database is locked|database disk image is malformed|database or disk is full|readonly database|file is not a database|no such (table|column)`)

// IsDatabaseError reports whether err carries the database's own text:
// an error of database/sql, of the SQLite driver or of a registered
// backend's driver (RecogniseDatabaseErrors), however wrapped.
func IsDatabaseError(err error) bool {
	if err == nil {
		return false
	}
	for _, f := range recognisers() {
		if f(err) {
			return true
		}
	}
	var se *sqlite.Error
	if errors.As(err, &se) || errors.Is(err, sql.ErrNoRows) || errors.Is(err, sql.ErrTxDone) ||
		errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) {
		return true
	}
	return dbText.MatchString(err.Error())
}

var (
	recogniseMu sync.RWMutex
	recognise   []func(error) bool
)

// RecogniseDatabaseErrors adds f to what IsDatabaseError asks: a backend
// registers the errors of its driver (Postgres's server and connection
// errors), so that their text, too, never reaches a user.
func RecogniseDatabaseErrors(f func(error) bool) {
	recogniseMu.Lock()
	defer recogniseMu.Unlock()
	recognise = append(recognise, f)
}

func recognisers() []func(error) bool {
	recogniseMu.RLock()
	defer recogniseMu.RUnlock()
	return recognise
}

// isBusy says whether err is SQLite's "another connection holds the lock".
func isBusy(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code() & 0xff
		return c == sqliteBusy || c == sqliteLocked
	}
	return false
}
