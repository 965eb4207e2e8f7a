// Package auth guards gno's sharing mode (`gno serve --listen-any`, and
// the daemon's): HTTPS only, access tokens, a login for the web app.
//
// It owns four things, each in its own file:
//
//   - token.go: the token format (gno_ + 58 base32 characters: 256 random
//     bits and a CRC-32 checksum), the Authorization header and token
//     lifetimes ("30d"). All three are parsed by hand (a prefix, an
//     alphabet, a length, a unit), so all three are fuzzed.
//   - store.go: the access tokens of an index, kept in the index itself
//     through Keeper (store.Backend's access-token methods, SQLite or
//     Postgres), so every server of one shared index reads the same
//     tokens: create, list, revoke, verify. Each check looks its token
//     up by hash (one indexed row), so a revocation counts on every
//     server from its next request. Only SHA-256 hashes of the secrets are kept. A plain hash
//     is the right tool here, unlike for passwords: a token carries 256
//     bits from crypto/rand, so no dictionary or brute force over the
//     input space exists and a slow KDF (bcrypt, argon2) would only slow
//     every request. Verification compares the hashes in constant time.
//     The tokens.json of an older gno is imported once and renamed.
//   - guard.go, session.go, limit.go: the http.Handler middleware. It
//     checks Host and Origin against the served names, refuses tokens in a
//     URL, authenticates `Authorization: Bearer` or a session cookie set by
//     its login page, rate-limits failed attempts per client IP (token
//     bucket, golang.org/x/time/rate) and logs them without the secret.
//     It puts an Identity in the request context; whoever runs a write
//     (the MCP write tools, the REST and web writes) asks CanWrite.
//   - tls.go: the server's TLS config (≥ 1.2): given certificate files, or
//     a self-signed ECDSA P-256 certificate generated once per index,
//     reused across restarts and regenerated when it expires or no longer
//     names the served address; its SHA-256 fingerprint is what teammates
//     pin.
//
// Authorisation lives where the action is, not here: the guard cannot know
// which JSON-RPC message is a write, so the MCP server and the web app ask
// CanWrite(ctx) themselves. Without a guard (loopback mode) there is no
// Identity and CanWrite is true, as before.
package auth
