package remote

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Pin is the one server certificate a bridge trusts, in either form
// `gno serve --listen-any` prints: the SHA-256 fingerprint of the
// certificate (AB:CD:…, as openssl prints it) or the SHA-256 of its public
// key (sha256//BASE64, curl's --pinnedpubkey form, which survives a
// renewed certificate with the same key).
type Pin struct {
	sum [sha256.Size]byte
	key bool // sum is of the public key, not the certificate
}

// ErrPinFormat is ParsePin's refusal.
var ErrPinFormat = errors.New("not a certificate fingerprint: want the SHA-256 fingerprint gno serve printed (64 hex digits, colons allowed) or a public key pin sha256//BASE64")

// ParsePin reads a fingerprint or public key pin. It accepts the forms
// people paste: upper or lower case, with or without colons, and
// openssl's "sha256 Fingerprint=" prefix.
func ParsePin(s string) (Pin, error) {
	s = strings.TrimSpace(s)
	var p Pin
	if b64, ok := strings.CutPrefix(s, "sha256//"); ok {
		b, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || len(b) != sha256.Size {
			return Pin{}, ErrPinFormat
		}
		copy(p.sum[:], b)
		p.key = true
		return p, nil
	}
	if i := strings.LastIndexByte(s, '='); i >= 0 && strings.Contains(strings.ToLower(s[:i]), "fingerprint") {
		s = strings.TrimSpace(s[i+1:])
	}
	if strings.Contains(s, ":") {
		// Colons separate every pair or none.
		parts := strings.Split(s, ":")
		if len(parts) != sha256.Size {
			return Pin{}, ErrPinFormat
		}
		for _, part := range parts {
			if len(part) != 2 {
				return Pin{}, ErrPinFormat
			}
		}
		s = strings.Join(parts, "")
	}
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != sha256.Size {
		return Pin{}, ErrPinFormat
	}
	copy(p.sum[:], b)
	return p, nil
}

// String is the pin as gno serve prints it.
func (p Pin) String() string {
	if p.key {
		return "sha256//" + base64.StdEncoding.EncodeToString(p.sum[:])
	}
	return colonHex(p.sum[:])
}

func colonHex(b []byte) string {
	parts := make([]string, len(b))
	for i, x := range b {
		parts[i] = fmt.Sprintf("%02X", x)
	}
	return strings.Join(parts, ":")
}

// PinError is a server whose certificate is not the pinned one.
type PinError struct {
	// Got is what the server presented, in the pin's form; Want the pin.
	Got, Want string
}

func (e *PinError) Error() string {
	return fmt.Sprintf("the server's certificate (SHA-256 %s) is not the pinned one (%s): either this is not the server you meant, "+
		"or its certificate changed; check with the server's owner before pinning the new fingerprint", e.Got, e.Want)
}

// verify checks the leaf certificate of a TLS connection against the pin.
// With a pin, the CA chain and host name do not matter: the pin names the
// one certificate (or key) to trust, a self-signed one included.
func (p Pin) verify(cs tls.ConnectionState) error {
	if len(cs.PeerCertificates) == 0 {
		return &PinError{Got: "none", Want: p.String()}
	}
	leaf := cs.PeerCertificates[0]
	der := leaf.Raw
	if p.key {
		der = leaf.RawSubjectPublicKeyInfo
	}
	got := sha256.Sum256(der)
	if !bytes.Equal(got[:], p.sum[:]) {
		g := Pin{sum: got, key: p.key}
		return &PinError{Got: g.String(), Want: p.String()}
	}
	return nil
}
