package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gofrs/flock"
)

// TLSOptions say where the server's certificate comes from.
type TLSOptions struct {
	// CertFile and KeyFile, both or neither, are a PEM certificate (chain)
	// and its key, used as they are.
	CertFile, KeyFile string
	// Dir keeps the generated self-signed certificate (cert.pem, key.pem,
	// 0600) when no files are given; e.g. the index directory's tls/.
	Dir string
	// Hosts are the names and IPs the generated certificate must name
	// (ServedNames); one it lacks makes a new certificate.
	Hosts []string
}

// Cert is the server's certificate and TLS configuration.
type Cert struct {
	// Config serves TLS 1.2 and later with Go's default (AEAD, forward
	// secret) cipher suites, HTTP/2 and HTTP/1.1.
	Config *tls.Config
	// Fingerprint is the SHA-256 of the certificate (DER), as
	// `openssl x509 -noout -fingerprint -sha256` prints it.
	Fingerprint string
	// PublicKeyPin is the SHA-256 of the public key, in the form
	// `curl --pinnedpubkey` takes (sha256//BASE64).
	PublicKeyPin string
	// Generated is true for gno's self-signed certificate; Created is true
	// when this call made it (a new fingerprint to hand out).
	Generated, Created bool
	// File is the certificate's PEM file.
	File string
	// NotAfter is when the certificate expires.
	NotAfter time.Time
	// Names are the DNS names and IPs the certificate is valid for.
	Names []string
}

// certLifetime is a generated certificate's validity.
const certLifetime = 365 * 24 * time.Hour

// renewBefore makes a certificate this close to expiry a new one, so a
// server never starts with one that dies within the day.
const renewBefore = 24 * time.Hour

// LoadTLS loads the given certificate, or loads (making it when missing,
// expiring or not naming every host) the self-signed one in o.Dir.
func LoadTLS(o TLSOptions) (*Cert, error) {
	if (o.CertFile == "") != (o.KeyFile == "") {
		return nil, gnoerr.New(gnoerr.InvalidInput, "--tls-cert and --tls-key go together")
	}
	if o.CertFile != "" {
		pair, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			return nil, gnoerr.Wrap(gnoerr.InvalidInput, err, "load TLS certificate %s and key %s", o.CertFile, o.KeyFile)
		}
		now := time.Now()
		if now.After(pair.Leaf.NotAfter) {
			return nil, gnoerr.New(gnoerr.InvalidInput, "TLS certificate %s expired on %s", o.CertFile, pair.Leaf.NotAfter.Format(time.DateOnly))
		}
		if now.Before(pair.Leaf.NotBefore) {
			return nil, gnoerr.New(gnoerr.InvalidInput, "TLS certificate %s is not valid before %s", o.CertFile, pair.Leaf.NotBefore.Format(time.RFC3339))
		}
		c := newCert(pair)
		c.File = o.CertFile
		return c, nil
	}
	if o.Dir == "" {
		return nil, errors.New("auth: no certificate files and no directory for a generated one")
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", o.Dir, err)
	}
	// Two servers starting at once must not make two certificates: the
	// second waits up to lockWait for the first.
	lock := flock.New(filepath.Join(o.Dir, ".lock"))
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	if ok, err := lock.TryLockContext(ctx, 20*time.Millisecond); !ok || err != nil {
		return nil, gnoerr.New(gnoerr.Locked, "certificate directory %s is locked by another gno process", o.Dir)
	}
	defer lock.Unlock()
	certFile, keyFile := filepath.Join(o.Dir, "cert.pem"), filepath.Join(o.Dir, "key.pem")
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	created := false
	if err != nil || !usable(pair.Leaf, o.Hosts) {
		if pair, err = generate(certFile, keyFile, o.Hosts); err != nil {
			return nil, err
		}
		created = true
	}
	c := newCert(pair)
	c.File, c.Generated, c.Created = certFile, true, created
	return c, nil
}

// usable reports whether a generated certificate can be kept: not about
// to expire, and naming every host.
func usable(leaf *x509.Certificate, hosts []string) bool {
	if leaf == nil || time.Now().Add(renewBefore).After(leaf.NotAfter) {
		return false
	}
	for _, h := range hosts {
		if leaf.VerifyHostname(h) != nil {
			return false
		}
	}
	return true
}

// generate makes a self-signed ECDSA P-256 certificate for hosts and
// writes it and its key (0600, atomically).
func generate(certFile, keyFile string, hosts []string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("generate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"gno"}, CommonName: "gno sharing server"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certLifetime),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if h != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("create certificate: %w", err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return tls.Certificate{}, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})
	// The key first: a certificate on disk always has its key beside it.
	if err := config.WriteFileAtomic(keyFile, keyPEM, 0o600); err != nil {
		return tls.Certificate{}, err
	}
	if err := config.WriteFileAtomic(certFile, certPEM, 0o600); err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

func newCert(pair tls.Certificate) *Cert {
	leaf := pair.Leaf
	pin := sha256.Sum256(leaf.RawSubjectPublicKeyInfo)
	c := &Cert{
		Config: &tls.Config{
			MinVersion:   tls.VersionTLS12,
			Certificates: []tls.Certificate{pair},
			NextProtos:   []string{"h2", "http/1.1"},
		},
		Fingerprint:  Fingerprint(leaf.Raw),
		PublicKeyPin: "sha256//" + base64.StdEncoding.EncodeToString(pin[:]),
		NotAfter:     leaf.NotAfter,
		Names:        slices.Clone(leaf.DNSNames),
	}
	for _, ip := range leaf.IPAddresses {
		c.Names = append(c.Names, ip.String())
	}
	return c
}

// Fingerprint formats the SHA-256 of a DER certificate as colon-separated
// uppercase hex pairs.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	parts := make([]string, len(sum))
	for i, b := range sum {
		parts[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(parts, ":")
}

// ServedNames are the names and IPs a server bound to bindHost is reached
// by: the bound IP (every interface address when it is unspecified, as
// 0.0.0.0 or ::), the machine's host name, localhost and the loopback
// addresses, and extra names (e.g. a DNS alias). They go into the
// generated certificate and Options.Hosts.
func ServedNames(bindHost string, extra ...string) []string {
	names := []string{"localhost", "127.0.0.1", "::1"}
	if hn, err := os.Hostname(); err == nil && hn != "" {
		names = append(names, strings.ToLower(hn))
	}
	bindHost = strings.Trim(bindHost, "[]")
	ip := net.ParseIP(bindHost)
	switch {
	case bindHost == "" || (ip != nil && ip.IsUnspecified()):
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if n, ok := a.(*net.IPNet); ok && !n.IP.IsLinkLocalUnicast() {
					names = append(names, n.IP.String())
				}
			}
		}
	case ip != nil:
		names = append(names, ip.String())
	default:
		names = append(names, strings.ToLower(bindHost))
	}
	for _, e := range extra {
		if e = strings.ToLower(strings.Trim(strings.TrimSpace(e), "[]")); e != "" {
			names = append(names, e)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// lockWait is how long a server waits for another's certificate.
const lockWait = 10 * time.Second
