package store

import (
	"context"
	"net/url"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// Choosing a backend.
//
// As database/sql has its drivers, the store has its backends: a package
// implementing Backend registers a Driver under the URL schemes it opens
// (retrieval/store/postgres registers "postgres" and "postgresql", and the
// gno command imports it), and OpenBackend picks one by the scheme of the
// index's location. A location without a scheme is a SQLite file, opened
// by this package: nothing changes for a single user. The engine names a
// location and never asks which backend answered it.

// Driver opens the indexes of one backend.
type Driver interface {
	// Open opens (creating if needed) the index at location.
	Open(ctx context.Context, location string) (Backend, error)
	// LockWriter takes the index's writer lock without opening the
	// index (a rebuild takes it before the index can be read). With
	// wait > 0 it retries until wait has passed or ctx ends; otherwise a
	// held lock gives gnoerr.Locked at once.
	LockWriter(ctx context.Context, location string, wait time.Duration) (Lock, error)
}

var (
	driversMu sync.RWMutex
	drivers   = map[string]Driver{}
)

// Register makes d open the locations of scheme ("postgres"). A second
// registration of one scheme panics: two drivers would make the choice
// depend on the order of imports.
func Register(scheme string, d Driver) {
	driversMu.Lock()
	defer driversMu.Unlock()
	scheme = strings.ToLower(scheme)
	if d == nil {
		panic("store: Register of a nil driver for " + scheme)
	}
	if _, dup := drivers[scheme]; dup {
		panic("store: Register called twice for " + scheme)
	}
	drivers[scheme] = d
}

// sqliteDriver opens a SQLite file: the locations without a scheme.
type sqliteDriver struct{}

func (sqliteDriver) Open(ctx context.Context, path string) (Backend, error) {
	return Open(ctx, path)
}

func (sqliteDriver) LockWriter(ctx context.Context, path string, wait time.Duration) (Lock, error) {
	return LockWriter(ctx, filepath.Dir(path), wait)
}

// schemeRE is a URL's scheme followed by "://"; a Windows drive ("C:\")
// or a plain path has none.
var schemeRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]+)://`)

// IsURL reports whether location names a server's index by URL rather
// than a SQLite file.
func IsURL(location string) bool { return schemeRE.MatchString(location) }

// driverFor returns the driver for location.
func driverFor(location string) (Driver, error) {
	m := schemeRE.FindStringSubmatch(location)
	if m == nil {
		return sqliteDriver{}, nil
	}
	scheme := strings.ToLower(m[1])
	driversMu.RLock()
	d, ok := drivers[scheme]
	driversMu.RUnlock()
	if !ok {
		return nil, gnoerr.New(gnoerr.InvalidInput, "no index store for %s:// in this gno (it opens SQLite files and %s)", scheme, strings.Join(Schemes(), ", "))
	}
	return d, nil
}

// Schemes lists the registered URL schemes, sorted, as "scheme://".
func Schemes() []string {
	driversMu.RLock()
	defer driversMu.RUnlock()
	var out []string
	for s := range drivers {
		out = append(out, s+"://")
	}
	sort.Strings(out)
	return out
}

// OpenBackend opens (creating if needed) the index at location: a SQLite
// file's path, or a URL whose scheme a registered Driver opens.
func OpenBackend(ctx context.Context, location string) (Backend, error) {
	d, err := driverFor(location)
	if err != nil {
		return nil, err
	}
	return d.Open(ctx, location)
}

// LockBackend takes the writer lock of the index at location
// (Driver.LockWriter).
func LockBackend(ctx context.Context, location string, wait time.Duration) (Lock, error) {
	d, err := driverFor(location)
	if err != nil {
		return nil, err
	}
	return d.LockWriter(ctx, location, wait)
}

// Redact is location fit for a message: a URL without its password.
func Redact(location string) string {
	if !IsURL(location) {
		return location
	}
	u, err := url.Parse(location)
	if err != nil {
		return "(an unparsable store URL)"
	}
	// libpq and pgx also take secrets as query parameters.
	if q := u.Query(); len(q) > 0 {
		hid := false
		for k := range q {
			switch strings.ToLower(k) {
			case "password", "sslpassword", "sslkey", "passfile":
				q.Set(k, "xxxxx")
				hid = true
			}
		}
		if hid {
			u.RawQuery = q.Encode()
		}
	}
	return u.Redacted()
}
