package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestGeneratedCertReused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tls")
	hosts := ServedNames("127.0.0.2")
	c1, err := LoadTLS(TLSOptions{Dir: dir, Hosts: hosts})
	if err != nil {
		t.Fatal(err)
	}
	if !c1.Generated || !c1.Created {
		t.Fatalf("first load: generated %v created %v", c1.Generated, c1.Created)
	}
	for _, f := range []string{"cert.pem", "key.pem"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v mode %v, want 0600", f, err, fi.Mode().Perm())
		}
	}
	leaf := c1.Config.Certificates[0].Leaf
	if _, ok := leaf.PublicKey.(*ecdsa.PublicKey); !ok || leaf.PublicKey.(*ecdsa.PublicKey).Curve != elliptic.P256() {
		t.Fatalf("key %T, want ECDSA P-256", leaf.PublicKey)
	}
	for _, h := range []string{"127.0.0.2", "localhost", "127.0.0.1"} {
		if err := leaf.VerifyHostname(h); err != nil {
			t.Errorf("certificate does not name %s: %v", h, err)
		}
	}
	c2, err := LoadTLS(TLSOptions{Dir: dir, Hosts: hosts})
	if err != nil {
		t.Fatal(err)
	}
	if c2.Created || c2.Fingerprint != c1.Fingerprint {
		t.Fatalf("restart made a new certificate: %s vs %s", c2.Fingerprint, c1.Fingerprint)
	}
	// A new name the certificate lacks makes a new one.
	c3, err := LoadTLS(TLSOptions{Dir: dir, Hosts: append(hosts, "gno.team.example")})
	if err != nil {
		t.Fatal(err)
	}
	if !c3.Created || c3.Fingerprint == c1.Fingerprint {
		t.Fatal("a certificate lacking a served name was kept")
	}
}

func TestExpiredCertRegenerated(t *testing.T) {
	dir := t.TempDir()
	certPEM, keyPEM := selfSigned(t, time.Now().Add(-48*time.Hour), time.Now().Add(-time.Hour), "127.0.0.2")
	os.WriteFile(filepath.Join(dir, "cert.pem"), certPEM, 0o600)
	os.WriteFile(filepath.Join(dir, "key.pem"), keyPEM, 0o600)
	c, err := LoadTLS(TLSOptions{Dir: dir, Hosts: []string{"127.0.0.2"}})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Created || time.Until(c.NotAfter) < 300*24*time.Hour {
		t.Fatalf("expired certificate kept (created %v, until %v)", c.Created, c.NotAfter)
	}
	// Garbage in the files is replaced too.
	os.WriteFile(filepath.Join(dir, "cert.pem"), []byte("garbage"), 0o600)
	if c, err := LoadTLS(TLSOptions{Dir: dir, Hosts: []string{"127.0.0.2"}}); err != nil || !c.Created {
		t.Fatalf("garbage certificate: %v", err)
	}
}

func TestGivenCertFiles(t *testing.T) {
	dir := t.TempDir()
	certPEM, keyPEM := selfSigned(t, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), "127.0.0.2")
	cf, kf := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	os.WriteFile(cf, certPEM, 0o600)
	os.WriteFile(kf, keyPEM, 0o600)
	c, err := LoadTLS(TLSOptions{CertFile: cf, KeyFile: kf, Dir: filepath.Join(dir, "gen")})
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(certPEM)
	if c.Generated || c.Fingerprint != Fingerprint(blk.Bytes) {
		t.Fatalf("given certificate not used: generated %v", c.Generated)
	}
	if _, err := os.Stat(filepath.Join(dir, "gen")); !os.IsNotExist(err) {
		t.Error("a certificate was generated although files were given")
	}
	for name, o := range map[string]TLSOptions{
		"cert only": {CertFile: cf},
		"missing":   {CertFile: cf + "x", KeyFile: kf},
		"swapped":   {CertFile: kf, KeyFile: cf},
	} {
		if _, err := LoadTLS(o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	oldC, oldK := selfSigned(t, time.Now().Add(-48*time.Hour), time.Now().Add(-time.Hour), "127.0.0.2")
	os.WriteFile(cf, oldC, 0o600)
	os.WriteFile(kf, oldK, 0o600)
	if _, err := LoadTLS(TLSOptions{CertFile: cf, KeyFile: kf}); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("expired given certificate: %v", err)
	}
}

func TestTLSVersionFloor(t *testing.T) {
	c, err := LoadTLS(TLSOptions{Dir: t.TempDir(), Hosts: []string{"127.0.0.2"}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.2:0", c.Config)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	old := &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS11}
	if conn, err := tls.Dial("tcp", ln.Addr().String(), old); err == nil {
		conn.Close()
		t.Fatal("TLS 1.1 handshake accepted")
	}
	pool := x509.NewCertPool()
	pool.AddCert(c.Config.Certificates[0].Leaf)
	conn, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: pool, ServerName: "127.0.0.2"})
	if err != nil {
		t.Fatalf("a client trusting the certificate cannot connect: %v", err)
	}
	conn.Close()
}

// selfSigned makes a certificate and key for host valid between from and to.
func selfSigned(t *testing.T, from, to time.Time, host string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "test"},
		NotBefore: from, NotAfter: to, IPAddresses: []net.IP{net.ParseIP(host)}, DNSNames: []string{"localhost"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := x509.MarshalPKCS8PrivateKey(key)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: k})
}
