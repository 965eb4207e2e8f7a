package store

import (
	"context"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// ServerInfo describes the database server an index lives on, for
// `gno status` and `gno doctor`; a SQLite index has none (Server answers
// nil).
type ServerInfo struct {
	// Server is the store's URL without its password.
	Server string `json:"server"`
	// Version is the server's version (server_version).
	Version string `json:"version"`
	// Vector is the version of pgvector in the index's database.
	Vector string `json:"vector,omitempty"`
	// TLS is the protocol and cipher of this process's connection, ""
	// when it is not encrypted.
	TLS string `json:"tls,omitempty"`
	// Schema is the index's schema version (meta schema).
	Schema string `json:"schema"`
	// LockHolder names the session holding the writer lock ("" when
	// none): its application name, address and since when.
	LockHolder string `json:"lockHolder,omitempty"`
	// Replica is the read replica, nil when reads go to the store.
	Replica *ReplicaInfo `json:"replica,omitempty"`
}

// ReplicaInfo describes the streaming replica the reads go to.
type ReplicaInfo struct {
	Server  string `json:"server"`
	Version string `json:"version,omitempty"`
	TLS     string `json:"tls,omitempty"`
	// Standby is false once the replica has been promoted to a primary.
	Standby bool `json:"standby"`
	// LagBytes is the WAL the replica has still to replay; LagSeconds how
	// old the last transaction it replayed is: 0 when it has replayed
	// everything (an idle primary sends nothing newer), and when it has
	// replayed none since it started (then only LagBytes tells).
	LagBytes   int64   `json:"lagBytes"`
	LagSeconds float64 `json:"lagSeconds"`
	// Problem says why the replica could not be measured ("" when it was).
	Problem string `json:"problem,omitempty"`
}

// Lag is the replica's delay as a duration.
func (r *ReplicaInfo) Lag() time.Duration {
	return time.Duration(r.LagSeconds * float64(time.Second))
}

// Server is nil for a SQLite index: it has no server.
func (s *Store) Server(ctx context.Context) (*ServerInfo, error) { return nil, nil }

// ReadDriver is a Driver that can send an index's reads to another
// server (a streaming replica) than its writes.
type ReadDriver interface {
	OpenRead(ctx context.Context, location, readLocation string) (Backend, error)
}

// OpenBackendRead is OpenBackend with the reads sent to readLocation (""
// for none): the location of a streaming replica of location's server.
func OpenBackendRead(ctx context.Context, location, readLocation string) (Backend, error) {
	if readLocation == "" {
		return OpenBackend(ctx, location)
	}
	d, err := driverFor(location)
	if err != nil {
		return nil, err
	}
	rd, ok := d.(ReadDriver)
	if !ok {
		return nil, gnoerr.New(gnoerr.InvalidInput, "a read URL (%s) needs an index on a server: this index's store is %s", Redact(readLocation), Redact(location))
	}
	return rd.OpenRead(ctx, location, readLocation)
}
