package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"strconv"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// TokenPrefix starts every access token, so secret scanners and people
// recognise one (and gno can refuse one pasted into a URL).
const TokenPrefix = "gno_"

// secretBytes is the token's randomness: 256 bits.
const secretBytes = 32

// tokenLen is the length of a token: the prefix, then the random bytes
// and a 4-byte CRC-32 in lowercase base32 without padding.
var tokenLen = len(TokenPrefix) + b32.EncodedLen(secretBytes+4)

// b32 is lowercase RFC 4648 base32: letters and digits only, so a token
// is selected whole by a double click and survives any shell quoting.
var b32 = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// Errors of ParseToken and ParseBearer. They never quote the input: it may
// be a secret.
var (
	ErrTokenFormat = errors.New("not a gno access token (want gno_ followed by 58 letters and digits)")
	ErrChecksum    = errors.New("access token checksum mismatch (mistyped or truncated?)")
	ErrNoBearer    = errors.New("the Authorization header is not \"Bearer <token>\"")
)

// NewSecret returns a fresh random access token.
func NewSecret() (string, error) {
	var b [secretBytes + 4]byte
	if _, err := rand.Read(b[:secretBytes]); err != nil {
		return "", err
	}
	binary.BigEndian.PutUint32(b[secretBytes:], crc32.ChecksumIEEE(b[:secretBytes]))
	return TokenPrefix + b32.EncodeToString(b[:]), nil
}

// ParseToken checks that s is a well-formed token: the prefix, the length,
// the alphabet, a canonical encoding and the checksum. The checksum lets a
// typo be told apart from a wrong token and costs an attacker nothing.
func ParseToken(s string) error {
	if len(s) != tokenLen || !strings.HasPrefix(s, TokenPrefix) {
		return ErrTokenFormat
	}
	body := s[len(TokenPrefix):]
	b, err := b32.DecodeString(body)
	if err != nil || len(b) != secretBytes+4 || b32.EncodeToString(b) != body {
		return ErrTokenFormat
	}
	if crc32.ChecksumIEEE(b[:secretBytes]) != binary.BigEndian.Uint32(b[secretBytes:]) {
		return ErrChecksum
	}
	return nil
}

// hashToken is what the store keeps of a token: hex SHA-256.
func hashToken(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// ParseBearer returns the credentials of an Authorization header value of
// the form "Bearer <token68>" (RFC 6750 section 2.1: the scheme is
// case-insensitive, one or more spaces follow it). It checks the syntax
// only; ParseToken checks that the credentials are a gno token.
func ParseBearer(h string) (string, error) {
	const scheme = "bearer"
	if len(h) <= len(scheme) || !strings.EqualFold(h[:len(scheme)], scheme) || h[len(scheme)] != ' ' {
		return "", ErrNoBearer
	}
	cred := strings.TrimLeft(h[len(scheme):], " ")
	if cred == "" || len(cred) > 4096 {
		return "", ErrNoBearer
	}
	// token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
	i := 0
	for i < len(cred) && isToken68(cred[i]) {
		i++
	}
	if i == 0 {
		return "", ErrNoBearer
	}
	for j := i; j < len(cred); j++ {
		if cred[j] != '=' {
			return "", ErrNoBearer
		}
	}
	return cred, nil
}

func isToken68(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~+/", c) >= 0
}

// containsToken reports whether s holds a well-formed token anywhere (a
// token pasted into a query string or form value by mistake).
func containsToken(s string) bool {
	for {
		i := strings.Index(s, TokenPrefix)
		if i < 0 {
			return false
		}
		if len(s)-i >= tokenLen && ParseToken(s[i:i+tokenLen]) != ErrTokenFormat {
			return true
		}
		s = s[i+1:]
	}
}

// ParseTTL reads a token lifetime: a number of days ("30d"), weeks ("2w")
// or a Go duration ("12h", "90m"). "0" or "never" means no expiry.
func ParseTTL(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0" || strings.EqualFold(s, "never") {
		return 0, nil
	}
	bad := gnoerr.New(gnoerr.InvalidInput, "invalid lifetime %q: use e.g. 30d, 2w, 12h or never", s)
	var d time.Duration
	if unit := s[len(s)-1]; unit == 'd' || unit == 'w' {
		n, err := strconv.ParseUint(s[:len(s)-1], 10, 32)
		if unit == 'w' {
			n *= 7
		}
		if err != nil || n > 100*366 { // bounded before it becomes a Duration: no overflow
			return 0, bad
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, bad
		}
	}
	if d <= 0 || d > 100*365*24*time.Hour {
		return 0, gnoerr.New(gnoerr.InvalidInput, "invalid lifetime %q: between a second and 100 years", s)
	}
	return d, nil
}
