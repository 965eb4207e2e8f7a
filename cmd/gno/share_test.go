package main

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnosearch/gno/server/auth"
)

// The sharing mode end to end: the real binary on 127.0.0.2 over real
// TLS, real tokens, a real index. docPhrase is in the only document; no
// refused response may carry it.
const docPhrase = "purple elephants guard the launch codes"

type shareServer struct {
	t           *testing.T
	cmd         *exec.Cmd
	base        string // https://127.0.0.2:PORT
	fingerprint string
	log         *lockedBuf
}

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
	// grew is closed by the next Write (waitFor waits on it).
	grew chan struct{}
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.grew != nil {
		close(l.grew)
		l.grew = nil
	}
	return l.b.Write(p)
}

// waitFor returns the log once it holds every one of want. A line the
// server wrote before it answered reaches the buffer through the test's
// copies of its stderr, which may run after the answer arrived: a test
// reading the log right after a request could miss it. After a minute
// without them it returns the log as it is (the caller's check fails).
func (l *lockedBuf) waitFor(want ...string) string {
	deadline := time.After(time.Minute)
	for {
		l.mu.Lock()
		s := l.b.String()
		all := true
		for _, w := range want {
			all = all && strings.Contains(s, w)
		}
		if all {
			l.mu.Unlock()
			return s
		}
		if l.grew == nil {
			l.grew = make(chan struct{})
		}
		grew := l.grew
		l.mu.Unlock()
		select {
		case <-grew:
		case <-deadline:
			return l.String()
		}
	}
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var (
	urlRE = regexp.MustCompile(`(https?://127\.0\.0\.2:\d+)`)
	fpRE  = regexp.MustCompile(`certificate SHA-256 fingerprint ([0-9A-F:]{95})`)
)

// shareIndex makes a home with one indexed document.
func shareIndex(t *testing.T) cli {
	c := newCLI(t)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "plan.md"), []byte("# Plan\n\nThe "+docPhrase+".\n"), 0o644)
	c.ok("collection", "add", root, "--name", "notes")
	c.ok("update")
	return c
}

// startShare runs gno with args (a --listen-any server on 127.0.0.2:0)
// and waits for its URL.
func startShare(t *testing.T, c cli, args ...string) *shareServer {
	t.Helper()
	cmd := exec.Command(gnoBin, args...)
	cmd.Env = append(c.env(), "GNO_MODELS_DIR="+filepath.Join(c.home, "no-models"))
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &shareServer{t: t, cmd: cmd, log: &lockedBuf{}}
	found := make(chan struct{})
	go func() {
		r := bufio.NewReader(pr)
		once := false
		for {
			line, err := r.ReadString('\n')
			s.log.Write([]byte(line))
			if m := fpRE.FindStringSubmatch(line); m != nil {
				s.fingerprint = m[1]
			}
			if m := urlRE.FindStringSubmatch(line); m != nil && !once && strings.Contains(line, "gno ") {
				s.base = strings.TrimSuffix(m[1], "/")
				once = true
				close(found)
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-found:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("gno %s did not report its URL:\n%s", strings.Join(args, " "), s.log.String())
	}
	t.Cleanup(func() { s.stop(); pw.Close() })
	return s
}

func (s *shareServer) stop() {
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// client trusts exactly the certificate whose fingerprint the server
// printed (what a teammate pins) and dials from the loopback IP from.
func (s *shareServer) client(from string) *http.Client {
	jar, _ := cookiejar.New(nil)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	fp := s.fingerprint
	tc := &tls.Config{InsecureSkipVerify: true, VerifyConnection: func(cs tls.ConnectionState) error {
		if got := auth.Fingerprint(cs.PeerCertificates[0].Raw); got != fp {
			return fmt.Errorf("certificate %s is not the pinned %s", got, fp)
		}
		return nil
	}}
	return &http.Client{Jar: jar, Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, TLSClientConfig: tc},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type reply struct {
	status int
	body   string
	resp   *http.Response
}

// do sends method path with headers (pairs; "Bearer" sets Authorization).
func (s *shareServer) do(c *http.Client, method, path, body string, hdr ...string) reply {
	s.t.Helper()
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		switch hdr[i] {
		case "Bearer":
			if hdr[i+1] != "" {
				req.Header.Set("Authorization", "Bearer "+hdr[i+1])
			}
		case "Host":
			req.Host = hdr[i+1]
		default:
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := c.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, string(b), resp}
}

// refused checks a refusal: the status and no document text.
func (r reply) refused(t *testing.T, what string, status int) {
	t.Helper()
	if r.status != status || strings.Contains(r.body, "elephants") {
		t.Errorf("%s: HTTP %d %.200s; want %d and no document text", what, r.status, r.body, status)
	}
}

// mcpCall posts one JSON-RPC request to /mcp and returns the result (or
// the HTTP refusal).
func (s *shareServer) mcpCall(c *http.Client, token, session, method string, params any) (json.RawMessage, reply) {
	s.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	hdr := []string{"Bearer", token, "Content-Type", "application/json", "Accept", "application/json, text/event-stream", "MCP-Protocol-Version", "2025-06-18"}
	if session != "" {
		hdr = append(hdr, "Mcp-Session-Id", session)
	}
	r := s.do(c, "POST", "/mcp", string(b), hdr...)
	if r.status != 200 {
		return nil, r
	}
	payload := r.body
	if strings.HasPrefix(r.resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(r.body, "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				payload = strings.TrimSpace(d)
			}
		}
	}
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  *struct{ Message string }
	}
	if err := json.Unmarshal([]byte(payload), &m); err != nil || m.Error != nil {
		s.t.Fatalf("%s: %s", method, payload)
	}
	return m.Result, r
}

func (s *shareServer) mcpInit(c *http.Client, token string) string {
	s.t.Helper()
	_, r := s.mcpCall(c, token, "", "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "share-test", "version": "1"}})
	if r.status != 200 {
		s.t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	return r.resp.Header.Get("Mcp-Session-Id")
}

func newToken(t *testing.T, c cli, args ...string) (secret, id string) {
	t.Helper()
	out := c.ok(append([]string{"token", "create", "--json"}, args...)...)
	var v struct{ Token, ID string }
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err, out)
	}
	return v.Token, v.ID
}

func TestShareRefusesWithoutToken(t *testing.T) {
	c := shareIndex(t)
	_, errOut, code := c.run("serve", "--listen-any", "--addr", "127.0.0.2:0")
	if code != 2 || !strings.Contains(errOut, "gno token create --read") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, errOut, code = c.run("mcp", "--http", "127.0.0.2:0", "--listen-any")
	if code != 2 || !strings.Contains(errOut, "gno token create --read") {
		t.Fatalf("mcp: exit %d: %s", code, errOut)
	}
	// Only expired tokens are no tokens.
	newToken(t, c, "--read", "--expires", "1s")
	time.Sleep(1100 * time.Millisecond)
	if _, errOut, code = c.run("serve", "--listen-any", "--addr", "127.0.0.2:0"); code != 2 {
		t.Fatalf("only an expired token: exit %d: %s", code, errOut)
	}
	if _, errOut, code = c.run("serve", "--tls-cert", "x.pem", "--addr", "127.0.0.1:0"); code != 2 || !strings.Contains(errOut, "--listen-any") {
		t.Fatalf("--tls-cert without --listen-any: exit %d: %s", code, errOut)
	}
}

func TestShareCorruptTokenFile(t *testing.T) {
	c := shareIndex(t)
	newToken(t, c, "--read")
	file := filepath.Join(c.home, "data", "default", "tokens.json")
	os.WriteFile(file, []byte(`{"version":1,"tokens":[{"id":`), 0o600)
	_, errOut, code := c.run("serve", "--listen-any", "--addr", "127.0.0.2:0")
	if code == 0 || !strings.Contains(errOut, "corrupt") || !strings.Contains(errOut, file) {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, errOut, code := c.run("token", "list"); code == 0 || !strings.Contains(errOut, "corrupt") {
		t.Fatalf("token list: exit %d: %s", code, errOut)
	}
	if _, _, code := c.run("token", "create", "--read"); code == 0 {
		t.Fatal("create over a corrupt file succeeded")
	}
	if b, _ := os.ReadFile(file); string(b) != `{"version":1,"tokens":[{"id":` {
		t.Fatal("the corrupt file was rewritten")
	}
}

func TestShareConcurrentCreate(t *testing.T) {
	c := newCLI(t)
	const rounds = 6
	var ids sync.Map
	for range rounds {
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				cmd := exec.Command(gnoBin, "token", "create", "--read", "--json")
				cmd.Env = c.env()
				out, err := cmd.Output()
				if err != nil {
					var stderr []byte
					if ee, ok := err.(*exec.ExitError); ok {
						stderr = ee.Stderr
					}
					t.Errorf("%v: %s", err, stderr)
					return
				}
				var v struct{ ID string }
				json.Unmarshal(out, &v)
				ids.Store(v.ID, true)
			})
		}
		wg.Wait()
	}
	var list []struct{ ID string }
	json.Unmarshal([]byte(c.ok("token", "list", "--json")), &list)
	n := 0
	ids.Range(func(k, _ any) bool {
		n++
		found := false
		for _, l := range list {
			found = found || l.ID == k
		}
		if !found {
			t.Errorf("token %s lost", k)
		}
		return true
	})
	if n != 2*rounds || len(list) != 2*rounds {
		t.Fatalf("created %d, listed %d, want %d", n, len(list), 2*rounds)
	}
}

func TestShareServe(t *testing.T) {
	c := shareIndex(t)
	read, _ := newToken(t, c, "--read", "--name", "alice")
	write, _ := newToken(t, c, "--write", "--name", "bot")
	revoked, revokedID := newToken(t, c, "--read")
	expired, _ := newToken(t, c, "--read", "--expires", "1s")
	s := startShare(t, c, "serve", "--listen-any", "--addr", "127.0.0.2:0", "--enable-write")
	if s.fingerprint == "" || !strings.HasPrefix(s.base, "https://") {
		t.Fatalf("no fingerprint or not https:\n%s", s.log.String())
	}
	// The printed fingerprint is the served certificate's.
	conn, err := tls.Dial("tcp", strings.TrimPrefix(s.base, "https://"), &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := auth.Fingerprint(conn.ConnectionState().PeerCertificates[0].Raw); got != s.fingerprint {
		t.Fatalf("served %s, printed %s", got, s.fingerprint)
	}
	if v := conn.ConnectionState().Version; v < tls.VersionTLS12 {
		t.Fatalf("TLS version %x", v)
	}
	conn.Close()
	cl := s.client("127.0.0.10")

	t.Run("read token reads", func(t *testing.T) {
		r := s.do(cl, "GET", "/api/search?q=elephants", "", "Bearer", read)
		if r.status != 200 || !strings.Contains(r.body, "elephants") {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})

	t.Run("refused", func(t *testing.T) {
		c.ok("token", "revoke", revokedID)
		time.Sleep(1100 * time.Millisecond) // the 1s token expires
		wrong, _ := auth.NewSecret()
		other := s.client("127.0.0.11")
		s.do(other, "GET", "/api/search?q=elephants", "").refused(t, "no token", 401)
		s.do(other, "GET", "/api/search?q=elephants", "", "Bearer", wrong).refused(t, "wrong token", 401)
		s.do(other, "GET", "/api/search?q=elephants", "", "Bearer", "not-a-token").refused(t, "malformed token", 401)
		s.do(other, "GET", "/api/search?q=elephants", "", "Bearer", revoked).refused(t, "revoked token", 401)
		s.do(other, "GET", "/api/search?q=elephants", "", "Bearer", expired).refused(t, "expired token", 401)
		s.do(other, "GET", "/api/search?q=elephants&token="+read, "").refused(t, "token in the query string", 400)
		s.do(other, "GET", "/api/search?q=elephants&access_token="+url.QueryEscape(read), "", "Bearer", read).refused(t, "access_token beside a header", 400)
		s.do(other, "GET", "/doc?ref=notes/plan.md", "", "Bearer", read, "Host", "evil.example:443").refused(t, "foreign Host", 403)
		s.do(other, "POST", "/api/search", `{"query":"elephants"}`, "Bearer", read, "Content-Type", "application/json", "Origin", "https://evil.example").refused(t, "foreign Origin", 403)
		s.do(other, "GET", "/doc?ref=notes/plan.md", "", "Bearer", wrong, "Accept", "text/html").refused(t, "a page with a wrong token", 401)
		// A last refusal from an address of its own: the server logs
		// each refusal before it answers, in order, so once this one's
		// line has arrived every line above it has too, and the secret
		// checks below read them all.
		s.do(s.client("127.0.0.12"), "GET", "/api/search?q=elephants", "").refused(t, "no token, the last one", 401)
		log := s.log.waitFor("ip=127.0.0.12")
		if strings.Contains(log, read[4:]) || strings.Contains(log, wrong[4:]) || strings.Contains(log, revoked[4:]) {
			t.Fatalf("a secret reached the log:\n%s", log)
		}
		if !strings.Contains(log, "ip=127.0.0.11") || !strings.Contains(log, "unknown or revoked token") {
			t.Errorf("refusals not logged:\n%s", log)
		}
	})

	t.Run("plain HTTP", func(t *testing.T) {
		resp, err := http.Get("http://" + strings.TrimPrefix(s.base, "https://") + "/api/search?q=elephants")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		reply{resp.StatusCode, string(b), resp}.refused(t, "plain HTTP", 400)
		if !strings.Contains(string(b), "HTTPS") {
			t.Errorf("plain HTTP answer does not say HTTPS: %s", b)
		}
	})

	t.Run("REST writes", func(t *testing.T) {
		s.do(cl, "POST", "/api/sync", `{}`, "Bearer", read, "Content-Type", "application/json").refused(t, "read token, POST /api/sync", 403)
		s.do(cl, "POST", "/api/embed", `{}`, "Bearer", read, "Content-Type", "application/json").refused(t, "read token, POST /api/embed", 403)
		s.do(cl, "POST", "/api/tag", `{"ref":"notes/plan.md","add":["x"]}`, "Bearer", read, "Content-Type", "application/json").refused(t, "read token, POST /api/tag", 403)
		if r := s.do(cl, "POST", "/api/sync", `{}`, "Bearer", write, "Content-Type", "application/json"); r.status != 200 {
			t.Fatalf("write token, POST /api/sync: %d %s", r.status, r.body)
		}
	})

	t.Run("MCP", func(t *testing.T) {
		if _, r := s.mcpCall(cl, "", "", "initialize", map[string]any{}); r.status != 401 {
			r.refused(t, "MCP without a token", 401)
		}
		sess := s.mcpInit(cl, read)
		res, _ := s.mcpCall(cl, read, sess, "tools/call", map[string]any{"name": "gno_search", "arguments": map[string]any{"query": "elephants"}})
		if !strings.Contains(string(res), "elephants") {
			t.Fatalf("gno_search with a read token: %s", res)
		}
		if names := toolNames(t, s, cl, read, sess); names["gno_sync"] || names["gno_capture"] || !names["gno_search"] {
			t.Errorf("a read token's tools/list: %v (want no write tool, gno_search)", names)
		}
		for _, tool := range []string{"gno_sync", "gno_capture", "gno_tag", "gno_add_collection"} {
			_, r := s.mcpCall(cl, read, sess, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{"collection": "notes"}})
			r.refused(t, "read token, MCP "+tool, 403)
		}
		// A batch hiding a write call is refused as a whole.
		batch := `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"gno_search","arguments":{"query":"x"}}},` +
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"gno_sync","arguments":{}}}]`
		s.do(cl, "POST", "/mcp", batch, "Bearer", read, "Content-Type", "application/json", "Accept", "application/json, text/event-stream",
			"Mcp-Session-Id", sess).refused(t, "read token, batch with gno_sync", 403)
		wsess := s.mcpInit(cl, write)
		if names := toolNames(t, s, cl, write, wsess); !names["gno_sync"] {
			t.Errorf("a write token's tools/list lacks gno_sync: %v", names)
		}
	})

	t.Run("web login", func(t *testing.T) {
		br := s.client("127.0.0.12")
		if r := s.do(br, "GET", "/", "", "Accept", "text/html"); r.status != 303 || r.resp.Header.Get("Location") != "/login" {
			t.Fatalf("page without a session: %d %s", r.status, r.resp.Header.Get("Location"))
		}
		if r := s.do(br, "GET", "/login", ""); r.status != 200 || !strings.Contains(r.body, `name="token"`) {
			t.Fatalf("login page: %d", r.status)
		}
		form := []string{"Content-Type", "application/x-www-form-urlencoded", "Origin", s.base}
		s.do(br, "POST", "/login", "token="+revoked, form...).refused(t, "login with a revoked token", 401)
		r := s.do(br, "POST", "/login", "token="+read, form...)
		if r.status != 303 {
			t.Fatalf("login: %d %s", r.status, r.body)
		}
		var ck *http.Cookie
		for _, x := range r.resp.Cookies() {
			if x.Name == auth.SessionCookie {
				ck = x
			}
		}
		if ck == nil || !ck.Secure || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/" || ck.Domain != "" {
			t.Fatalf("session cookie %+v: want __Host-, Secure, HttpOnly, SameSite=Strict, Path=/", ck)
		}
		page := s.do(br, "GET", "/", "", "Accept", "text/html")
		m := regexp.MustCompile(`name="gno-csrf" content="([0-9a-f]+)"`).FindStringSubmatch(page.body)
		if page.status != 200 || m == nil {
			t.Fatalf("search page with a session: %d", page.status)
		}
		if r := s.do(br, "GET", "/api/search?q=elephants", ""); r.status != 200 || !strings.Contains(r.body, "elephants") {
			t.Fatalf("REST with a session: %d", r.status)
		}
		web := []string{"Content-Type", "application/json", "X-Gno-Csrf", m[1], "Origin", s.base}
		s.do(br, "POST", "/api/sync", `{}`, web...).refused(t, "web write with a read session", 403)
		// A write session writes, with the page's CSRF token only.
		s.do(br, "POST", "/logout", "", "Origin", s.base)
		if r := s.do(br, "POST", "/login", "token="+write, form...); r.status != 303 {
			t.Fatalf("login (write): %d", r.status)
		}
		s.do(br, "POST", "/api/sync", `{}`, "Content-Type", "application/json", "Origin", s.base).refused(t, "web write without the CSRF token", 403)
		waitJobs(t, s, br)
		if r := s.do(br, "POST", "/api/sync", `{}`, web...); r.status != 200 {
			t.Fatalf("web write with a write session: %d %s", r.status, r.body)
		}
		s.do(br, "POST", "/logout", "", "Origin", s.base)
		s.do(br, "GET", "/api/search?q=elephants", "").refused(t, "after logout", 401)
	})

	t.Run("brute force", func(t *testing.T) {
		attacker := s.client("127.0.0.13")
		for i := range 10 {
			wrong, _ := auth.NewSecret()
			s.do(attacker, "GET", "/api/search?q=elephants", "", "Bearer", wrong).refused(t, fmt.Sprintf("guess %d", i+1), 401)
		}
		wrong, _ := auth.NewSecret()
		r := s.do(attacker, "GET", "/api/search?q=elephants", "", "Bearer", wrong)
		r.refused(t, "11th guess", 429)
		if r.resp.Header.Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
		s.do(attacker, "GET", "/api/search?q=elephants", "", "Bearer", read).refused(t, "right token from the blocked address", 429)
		if r := s.do(s.client("127.0.0.14"), "GET", "/api/search?q=elephants", "", "Bearer", read); r.status != 200 {
			t.Fatalf("right token from another address: %d", r.status)
		}
	})

	// Restarted, the server keeps its certificate.
	s.stop()
	s2 := startShare(t, c, "serve", "--listen-any", "--addr", "127.0.0.2:0")
	if s2.fingerprint != s.fingerprint || strings.Contains(s2.log.String(), "new:") {
		t.Fatalf("restart changed the certificate: %s -> %s", s.fingerprint, s2.fingerprint)
	}
	if list := c.ok("token", "list"); !strings.Contains(list, "alice") || strings.Contains(list, read[4:]) {
		t.Fatalf("token list:\n%s", list)
	}
}

func toolNames(t *testing.T, s *shareServer, cl *http.Client, token, sess string) map[string]bool {
	res, _ := s.mcpCall(cl, token, sess, "tools/list", map[string]any{})
	var v struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal(res, &v); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range v.Tools {
		names[tl.Name] = true
	}
	return names
}

// waitJobs waits until the server runs no job (one job slot).
func waitJobs(t *testing.T, s *shareServer, c *http.Client) {
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); {
		r := s.do(c, "GET", "/api/jobs", "")
		if !strings.Contains(r.body, `"active":[{`) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("a job never finished")
}

func TestShareGivenCertAndMCPCommand(t *testing.T) {
	c := shareIndex(t)
	read, _ := newToken(t, c, "--read")
	dir := t.TempDir()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(42), Subject: pkix.Name{CommonName: "team"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(24 * time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.2")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, _ := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	kb, _ := x509.MarshalPKCS8PrivateKey(key)
	cf, kf := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(cf, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(kf, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb}), 0o600)

	s := startShare(t, c, "mcp", "--http", "127.0.0.2:0", "--listen-any", "--tls-cert", cf, "--tls-key", kf)
	if s.fingerprint != auth.Fingerprint(der) {
		t.Fatalf("printed %s, given certificate %s", s.fingerprint, auth.Fingerprint(der))
	}
	// A client trusting the given certificate as a CA connects by name.
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	cl := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	s.do(cl, "POST", "/mcp", `{}`, "Content-Type", "application/json").refused(t, "gno mcp --http --listen-any without a token", 401)
	sess := s.mcpInit(cl, read)
	res, _ := s.mcpCall(cl, read, sess, "tools/call", map[string]any{"name": "gno_search", "arguments": map[string]any{"query": "elephants"}})
	if !strings.Contains(string(res), "elephants") {
		t.Fatalf("gno_search: %s", res)
	}
	if _, err := os.Stat(filepath.Join(c.home, "data", "default", "tls")); !os.IsNotExist(err) {
		t.Error("a certificate was generated although files were given")
	}
}
