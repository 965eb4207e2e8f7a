package reliability

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"github.com/gnosearch/gno/server/auth"
)

// tlsFlag makes the soak drive its HTTP server in the sharing mode:
// `gno mcp --http 127.0.0.2:0 --listen-any`, HTTPS with the generated
// certificate (pinned by its printed fingerprint) and a read token in
// Authorization: Bearer on every request. Loopback only.
var tlsFlag = flag.Bool("tls", false, "soak: serve HTTP in the sharing mode (TLS and a Bearer token on 127.0.0.2)")

var (
	sharedURLRE = regexp.MustCompile(`serving (https://[^ \n]+)`)
	sharedFPRE  = regexp.MustCompile(`certificate SHA-256 fingerprint ([0-9A-F:]{95})`)
)

// startShared creates a read token and launches the sharing-mode MCP
// server; it returns the process and a session over TLS with the token.
func startShared(t testing.TB, e *env) (*exec.Cmd, *httpConn) {
	t.Helper()
	var created struct{ Token string }
	if err := json.Unmarshal([]byte(e.mustGno("token", "create", "--read", "--name", "soak", "--json").stdout), &created); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gnoBin(), "mcp", "--http", "127.0.0.2:0", "--listen-any")
	cmd.Env = e.vars
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	type found struct{ url, fp string }
	fc := make(chan found, 1)
	go func() {
		r := bufio.NewReader(pr)
		var f found
		for {
			line, err := r.ReadString('\n')
			if m := sharedFPRE.FindStringSubmatch(line); m != nil {
				f.fp = m[1]
			}
			if m := sharedURLRE.FindStringSubmatch(line); m != nil && f.url == "" {
				f.url = m[1]
				fc <- f
			}
			if err != nil {
				return
			}
		}
	}()
	var f found
	select {
	case f = <-fc:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("gno mcp --http --listen-any did not report its address")
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); pw.Close() })
	pin := &tls.Config{InsecureSkipVerify: true, VerifyConnection: func(cs tls.ConnectionState) error {
		if got := auth.Fingerprint(cs.PeerCertificates[0].Raw); got != f.fp {
			return fmt.Errorf("server certificate %s is not the printed %s", got, f.fp)
		}
		return nil
	}}
	hc := &httpConn{url: f.url, bearer: created.Token, proc: cmd,
		client: &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{TLSClientConfig: pin, MaxIdleConnsPerHost: 8}}}
	if err := initialize(bg(), hc); err != nil {
		t.Fatal(err)
	}
	return cmd, hc
}
