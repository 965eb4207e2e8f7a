package pgtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TLSServer is the test server behind TLS: a proxy on loopback that
// answers PostgreSQL's SSLRequest, does the TLS handshake with a
// certificate for 127.0.0.1 signed by a CA made for the test, and
// forwards the decrypted stream to the test server. The wheel's
// PostgreSQL is built without SSL, so this is how the client's side of
// TLS (sslmode, sslrootcert, verify-full) is tested against a real
// server.
type TLSServer struct {
	// URL is base's URL through the proxy (no sslmode: callers add it).
	URL string
	// CAFile is the PEM file of the CA that signed the proxy's
	// certificate, for sslrootcert.
	CAFile string
}

// sslRequestCode and gssEncRequestCode open a connection that asks for
// TLS or GSSAPI encryption (the protocol's 8-byte request messages).
const (
	sslRequestCode    = 80877103
	gssEncRequestCode = 80877104
)

// StartTLS starts a TLS proxy in front of the server at base (a URL of
// the test server) for t, stopped when t ends.
func StartTLS(t testing.TB, base string) *TLSServer {
	t.Helper()
	dir := t.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gno test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: key}}, MinVersion: tls.VersionTLS12}

	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	backend := u.Host
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	open := map[net.Conn]bool{}
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for c := range open {
			c.Close() // a connection a test left open ends with it
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			open[c] = true
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				proxyTLS(c, cfg, backend)
				mu.Lock()
				delete(open, c)
				mu.Unlock()
			}()
		}
	}()
	u.Host = l.Addr().String()
	return &TLSServer{URL: u.String(), CAFile: caFile}
}

// proxyTLS serves one client: TLS when it asks for it (a client that
// does not is sent on in clear, as a server with ssl on would accept
// it), the rest forwarded to backend.
func proxyTLS(c net.Conn, cfg *tls.Config, backend string) {
	defer c.Close()
	var client net.Conn = c
	var first []byte
	for {
		head := make([]byte, 8)
		if _, err := io.ReadFull(c, head); err != nil {
			return
		}
		code := binary.BigEndian.Uint32(head[4:])
		if binary.BigEndian.Uint32(head[:4]) == 8 && code == gssEncRequestCode {
			c.Write([]byte{'N'})
			continue
		}
		if binary.BigEndian.Uint32(head[:4]) == 8 && code == sslRequestCode {
			if _, err := c.Write([]byte{'S'}); err != nil {
				return
			}
			tc := tls.Server(c, cfg)
			if err := tc.Handshake(); err != nil {
				return
			}
			client = tc
		} else {
			first = head
		}
		break
	}
	b, err := net.Dial("tcp", backend)
	if err != nil {
		return
	}
	defer b.Close()
	if len(first) > 0 {
		if _, err := b.Write(first); err != nil {
			return
		}
	}
	done := make(chan struct{}, 2)
	go func() { io.Copy(b, client); done <- struct{}{} }()
	go func() { io.Copy(client, b); done <- struct{}{} }()
	<-done
}
