package postgres

import (
	"errors"
	"strings"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/jackc/pgx/v5/pgconn"
)

// connectError says why the server could not be reached, without the
// driver's text (it goes to the log through gnoerr.Public).
func connectError(u string, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01", "28000":
			return gnoerr.Wrap(gnoerr.Unavailable, err, "PostgreSQL at %s refused the password or user: check the URL, PGPASSFILE or PGPASSWORD", store.Redact(u))
		case "3D000":
			return gnoerr.Wrap(gnoerr.Unavailable, err, "PostgreSQL at %s has no such database: create it first (CREATE DATABASE)", store.Redact(u))
		}
	}
	switch msg := err.Error(); {
	case strings.Contains(msg, "server refused TLS connection"):
		return gnoerr.Wrap(gnoerr.Unavailable, err, "PostgreSQL at %s does not accept TLS, and the URL's sslmode requires it: turn ssl on at the server, or change sslmode", store.Redact(u))
	case strings.Contains(msg, "certificate"), strings.Contains(msg, "x509"), strings.Contains(msg, "tls:"):
		return gnoerr.Wrap(gnoerr.Unavailable, err, "the TLS certificate of PostgreSQL at %s was not accepted: check sslrootcert (sslmode=verify-full checks the server's name too)", store.Redact(u))
	case strings.Contains(msg, "password") && (strings.Contains(msg, "no password") || strings.Contains(msg, "password authentication")):
		return gnoerr.Wrap(gnoerr.Unavailable, err, "PostgreSQL at %s wants a password: give it in PGPASSFILE (or ~/.pgpass) or PGPASSWORD", store.Redact(u))
	}
	return gnoerr.Wrap(gnoerr.Unavailable, err, "cannot connect to the index store PostgreSQL at %s", store.Redact(u))
}
