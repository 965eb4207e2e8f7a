package remote

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnosearch/gno/server/auth"
)

func TestParsePin(t *testing.T) {
	cert, err := auth.LoadTLS(auth.TLSOptions{Dir: t.TempDir(), Hosts: []string{"localhost"}})
	if err != nil {
		t.Fatal(err)
	}
	leaf := cert.Config.Certificates[0].Leaf
	cs := tls.ConnectionState{PeerCertificates: []*x509.Certificate{leaf}}
	plain := strings.ReplaceAll(cert.Fingerprint, ":", "")
	for _, in := range []string{cert.Fingerprint, strings.ToLower(cert.Fingerprint), plain, " " + plain + "\n",
		"sha256 Fingerprint=" + cert.Fingerprint, cert.PublicKeyPin} {
		p, err := ParsePin(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if err := p.verify(cs); err != nil {
			t.Fatalf("%q does not match its own certificate: %v", in, err)
		}
	}
	if p, _ := ParsePin(cert.Fingerprint); p.String() != cert.Fingerprint {
		t.Fatalf("String %s, printed %s", p.String(), cert.Fingerprint)
	}
	if p, _ := ParsePin(cert.PublicKeyPin); p.String() != cert.PublicKeyPin {
		t.Fatalf("String %s, printed %s", p.String(), cert.PublicKeyPin)
	}
	other := sha256.Sum256([]byte("another certificate"))
	p, _ := ParsePin(colonHex(other[:]))
	var pe *PinError
	if err := p.verify(cs); !errors.As(err, &pe) || pe.Got != cert.Fingerprint {
		t.Fatalf("a wrong pin: %v", err)
	}
	for _, bad := range []string{"", "AB:CD", plain[:62], plain + "00", "ABC:D" + cert.Fingerprint[5:], strings.Replace(cert.Fingerprint, ":", "", 1),
		"sha256//" + base64.StdEncoding.EncodeToString(other[:16]), "sha256//!!", "zz" + plain[2:]} {
		if _, err := ParsePin(bad); !errors.Is(err, ErrPinFormat) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func FuzzParsePin(f *testing.F) {
	sum := sha256.Sum256([]byte("x"))
	f.Add(colonHex(sum[:]))
	f.Add("sha256//" + base64.StdEncoding.EncodeToString(sum[:]))
	f.Add("sha256 Fingerprint=AB")
	f.Add("::::")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePin(s)
		if err != nil {
			return
		}
		// What parses prints as gno serve prints it and parses back.
		q, err := ParsePin(p.String())
		if err != nil || q != p {
			t.Fatalf("%q -> %s -> %v %v", s, p, q, err)
		}
	})
}

func TestEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"https://team.example:7777":    "https://team.example:7777/mcp",
		"https://team.example:7777/":   "https://team.example:7777/mcp",
		" https://10.0.0.5:7777/mcp ":  "https://10.0.0.5:7777/mcp",
		"https://[::1]:7777/other/mcp": "https://[::1]:7777/other/mcp",
	} {
		if got, err := Endpoint(in); err != nil || got != want {
			t.Errorf("%q: %q %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "team.example:7777", "http://team.example:7777", "https://u:p@team.example:7777",
		"https://team.example:7777/mcp?access_token=x", "https://team.example:7777/#x", "ftp://x"} {
		if _, err := Endpoint(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// A malformed value is not echoed: it may hold a token.
	for _, bad := range []string{"https//user:SECRET@team.example:7777", "team.example/mcp?token=SECRET", "https://user:SECRET@[::1", "SECRET"} {
		if _, err := Endpoint(bad); err == nil || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestLoadToken(t *testing.T) {
	tok, _ := auth.NewSecret()
	env := map[string]string{"GNO_TOKEN": tok, "EMPTY": " ", "LEFT": "${env:GNO_TOKEN}", "BAD": "gno_nope"}
	getenv := func(k string) string { return env[k] }
	if got, _, err := LoadToken("", "", getenv); err != nil || got != tok {
		t.Fatalf("GNO_TOKEN: %v", err)
	}
	for name, want := range map[string]string{"EMPTY": "no access token: set EMPTY", "UNSET": "no access token: set UNSET",
		"LEFT": "was not set where the client started", "BAD": "not a gno access token"} {
		_, _, err := LoadToken(name, "", getenv)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", name, err)
		}
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	os.WriteFile(file, []byte(tok+"\n"), 0o600)
	if got, warn, err := LoadToken("UNSET", file, getenv); err != nil || got != tok || warn != "" {
		t.Fatalf("file: %q %q %v", got, warn, err)
	}
	os.Chmod(file, 0o644)
	if _, warn, _ := LoadToken("", file, getenv); !strings.Contains(warn, "chmod 600") {
		t.Errorf("an open token file: no warning (%q)", warn)
	}
	os.WriteFile(file, []byte("gno_"+strings.Repeat("a", 58)), 0o600)
	if _, _, err := LoadToken("", file, getenv); err == nil || strings.Contains(err.Error(), "aaaa") {
		t.Errorf("a malformed token file: %v", err)
	}
	if _, _, err := LoadToken("", filepath.Join(dir, "missing"), getenv); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("a missing file: %v", err)
	}
}

// TestPinNoProxy: with a pin the bridge connects directly, so the pin is
// checked against the server's certificate, never a proxy's.
func TestPinNoProxy(t *testing.T) {
	p, err := ParsePin(strings.Repeat("AB", 32))
	if err != nil {
		t.Fatal(err)
	}
	if tr := httpClient(&p, "").Transport.(capture).base.(*http.Transport); tr.Proxy != nil {
		t.Error("a pinned client uses a proxy")
	}
	if tr := httpClient(nil, "").Transport.(capture).base.(*http.Transport); tr.Proxy == nil {
		t.Error("an unpinned client ignores the environment's proxy")
	}
}
