package auth

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// docText stands for a document: no refused response may carry it.
const docText = "PURPLE-ELEPHANT-LAUNCH-CODES"

// guarded is a Guard in front of a handler that serves docText, over real
// TLS on 127.0.0.2.
type guarded struct {
	t      *testing.T
	base   string
	store  *Store
	pool   *x509.CertPool
	logBuf *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startGuarded(t *testing.T, o Options) *guarded {
	t.Helper()
	dir := t.TempDir()
	g := &guarded{t: t, store: newTestStore(t, dir), logBuf: &syncBuffer{}}
	cert, err := LoadTLS(TLSOptions{Dir: dir + "/tls", Hosts: ServedNames("127.0.0.2")})
	if err != nil {
		t.Fatal(err)
	}
	g.pool = x509.NewCertPool()
	g.pool.AddCert(cert.Config.Certificates[0].Leaf)
	o.Store = g.store
	o.Logger = slog.New(slog.NewTextHandler(g.logBuf, nil))
	o.Hosts = ServedNames("127.0.0.2")
	guard, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.2:0", cert.Config)
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: guard.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := IdentityFrom(r.Context())
		if r.Header.Get("Authorization") != "" {
			t.Error("the Authorization header reached the handler")
		}
		io.WriteString(w, docText+" scope="+string(id.Scope))
	}))}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	g.base = "https://" + ln.Addr().String()
	return g
}

// client dials from the loopback address from (another client IP).
func (g *guarded) client(from string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport:     &http.Transport{DialContext: d.DialContext, TLSClientConfig: &tls.Config{RootCAs: g.pool}}}
}

func (g *guarded) token(scope Scope, ttl time.Duration) string {
	s, _ := g.tokenID(scope, ttl)
	return s
}

func (g *guarded) tokenID(scope Scope, ttl time.Duration) (secret, id string) {
	s, tok, err := g.store.Create(context.Background(), "t", scope, ttl)
	if err != nil {
		g.t.Fatal(err)
	}
	return s, tok.ID
}

// do sends a request and returns status, body and the response.
func (g *guarded) do(c *http.Client, method, path, bearer string, hdr map[string]string, body io.Reader) (int, string, *http.Response) {
	g.t.Helper()
	req, _ := http.NewRequest(method, g.base+path, body)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := c.Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp
}

func TestGuardRefusals(t *testing.T) {
	g := startGuarded(t, Options{})
	c := g.client("127.0.0.6")
	read := g.token(Read, 0)
	if st, body, _ := g.do(c, "GET", "/api/search", read, nil, nil); st != 200 || !strings.Contains(body, docText+" scope=read") {
		t.Fatalf("read token: %d %s", st, body)
	}
	revoked, rid := g.tokenID(Read, 0)
	if _, err := g.store.Revoke(context.Background(), rid); err != nil {
		t.Fatal(err)
	}
	expired := g.token(Read, time.Second)
	time.Sleep(1100 * time.Millisecond)
	wrong, _ := NewSecret()
	for name, c2 := range map[string]struct {
		hdr  map[string]string
		path string
		want int
	}{
		"no token":        {nil, "/api/search", 401},
		"wrong token":     {map[string]string{"Authorization": "Bearer " + wrong}, "/", 401},
		"revoked token":   {map[string]string{"Authorization": "Bearer " + revoked}, "/", 401},
		"expired token":   {map[string]string{"Authorization": "Bearer " + expired}, "/", 401},
		"basic auth":      {map[string]string{"Authorization": "Basic " + read}, "/", 401},
		"query token":     {nil, "/api/search?q=x&token=" + read, 400},
		"access_token":    {nil, "/api/search?access_token=abc", 400},
		"escaped token":   {nil, "/api/search?q=" + url.QueryEscape(" "+read), 400},
		"token in path":   {nil, "/doc/" + read, 400},
		"foreign host":    {map[string]string{"Authorization": "Bearer " + read, "Host": "evil.example"}, "/", 403},
		"foreign origin":  {map[string]string{"Authorization": "Bearer " + read, "Origin": "https://evil.example"}, "/", 403},
		"http origin":     {map[string]string{"Authorization": "Bearer " + read, "Origin": "http://" + strings.TrimPrefix(g.base, "https://")}, "/", 403},
		"query + header":  {map[string]string{"Authorization": "Bearer " + read}, "/?access_token=" + read, 400},
		"bad cookie only": {map[string]string{"Cookie": SessionCookie + "=abc"}, "/api/search", 401},
		"host + path":     {map[string]string{"Host": "evil.example"}, "/doc/" + read, 403},
		"null origin":     {map[string]string{"Authorization": "Bearer " + read, "Origin": "null"}, "/", 403},
		"null cross-site": {map[string]string{"Authorization": "Bearer " + read, "Origin": "null", "Sec-Fetch-Site": "cross-site"}, "/", 403},
	} {
		st, body, _ := g.do(c, "GET", c2.path, "", c2.hdr, nil)
		if st != c2.want || strings.Contains(body, docText) {
			t.Errorf("%s: %d %s, want %d and no document text", name, st, body, c2.want)
		}
	}
	if strings.Contains(g.logBuf.String(), read[4:]) || strings.Contains(g.logBuf.String(), wrong[4:]) {
		t.Fatalf("a secret reached the log:\n%s", g.logBuf.String())
	}
	for _, want := range []string{"ip=127.0.0.6", "reason=\"unknown or revoked token\"", "reason=\"expired token\"", "reason=\"access token in URL\""} {
		if !strings.Contains(g.logBuf.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, g.logBuf.String())
		}
	}
}

func TestGuardRateLimit(t *testing.T) {
	g := startGuarded(t, Options{FailuresPerMinute: 10})
	read := g.token(Read, 0)
	attacker := g.client("127.0.0.7")
	for i := range 10 {
		wrong, _ := NewSecret()
		if st, _, _ := g.do(attacker, "GET", "/", wrong, nil, nil); st != 401 {
			t.Fatalf("attempt %d: %d, want 401", i+1, st)
		}
	}
	wrong, _ := NewSecret()
	st, body, resp := g.do(attacker, "GET", "/", wrong, nil, nil)
	if st != 429 || resp.Header.Get("Retry-After") == "" || strings.Contains(body, docText) {
		t.Fatalf("11th failure: %d Retry-After %q %s", st, resp.Header.Get("Retry-After"), body)
	}
	// The blocked client is refused even with the right token (no oracle)...
	if st, _, _ := g.do(attacker, "GET", "/", read, nil, nil); st != 429 {
		t.Fatalf("right token from the blocked client: %d, want 429", st)
	}
	// ...while another client is served.
	if st, body, _ := g.do(g.client("127.0.0.8"), "GET", "/", read, nil, nil); st != 200 || !strings.Contains(body, docText) {
		t.Fatalf("another client: %d %s", st, body)
	}
	if !strings.Contains(g.logBuf.String(), "client blocked") {
		t.Errorf("the block is not logged:\n%s", g.logBuf.String())
	}
}

func TestGuardLogin(t *testing.T) {
	g := startGuarded(t, Options{Login: true, Public: []string{"/assets/"}})
	c := g.client("127.0.0.9")
	read, readID := g.tokenID(Read, 0)
	page := map[string]string{"Accept": "text/html"}
	if st, _, resp := g.do(c, "GET", "/", "", page, nil); st != 303 || resp.Header.Get("Location") != "/login" {
		t.Fatalf("page without a session: %d %s", st, resp.Header.Get("Location"))
	}
	if st, body, _ := g.do(c, "GET", "/assets/style.css", "", nil, nil); st != 200 || !strings.Contains(body, docText) {
		t.Fatalf("public asset: %d", st)
	}
	st, body, resp := g.do(c, "GET", "/login", "", page, nil)
	if st != 200 || !strings.Contains(body, `name="token"`) || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("login page: %d %s", st, body)
	}
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	wrong, _ := NewSecret()
	if st, body, _ := g.do(c, "POST", "/login", "", form, strings.NewReader("token="+wrong)); st != 401 || strings.Contains(body, wrong) {
		t.Fatalf("wrong token login: %d", st)
	}
	if st, _, _ := g.do(c, "POST", "/login", "", map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": "https://evil.example"},
		strings.NewReader("token="+read)); st != 403 {
		t.Fatalf("cross-origin login: %d", st)
	}
	// What Chromium sends for a form on a no-referrer page.
	browserForm := map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": "null", "Sec-Fetch-Site": "same-origin"}
	st, _, resp = g.do(c, "POST", "/login", "", browserForm, strings.NewReader("token="+url.QueryEscape(read)))
	if st != 303 {
		t.Fatalf("login: %d", st)
	}
	var ck *http.Cookie
	for _, x := range resp.Cookies() {
		if x.Name == SessionCookie {
			ck = x
		}
	}
	if ck == nil || !ck.Secure || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/" || ck.MaxAge <= 0 || ck.Domain != "" {
		t.Fatalf("session cookie %+v: want Secure, HttpOnly, SameSite=Strict, Path=/, no Domain", ck)
	}
	if strings.Contains(ck.Value, read[4:]) || len(ck.Value) < 43 {
		t.Fatal("the session cookie is not a fresh random id")
	}
	if st, body, _ := g.do(c, "GET", "/", "", page, nil); st != 200 || !strings.Contains(body, "scope=read") {
		t.Fatalf("page with a session: %d %s", st, body)
	}
	if st, body, _ := g.do(c, "GET", "/login", "", page, nil); st != 200 || !strings.Contains(body, "Sign out") {
		t.Fatalf("login page when signed in: %d", st)
	}
	if st, _, _ := g.do(c, "GET", "/logout", "", nil, nil); st != 405 {
		t.Fatalf("GET /logout: %d, want 405", st)
	}
	if st, _, _ := g.do(c, "POST", "/logout", "", nil, nil); st != 303 {
		t.Fatalf("logout: %d", st)
	}
	if st, _, _ := g.do(c, "GET", "/api/search", "", nil, nil); st != 401 {
		t.Fatalf("after logout: %d, want 401", st)
	}
	// The old cookie value is dead server-side, not only in this jar.
	stale := g.client("127.0.0.9")
	if st, _, _ := g.do(stale, "GET", "/api/search", "", map[string]string{"Cookie": SessionCookie + "=" + ck.Value}, nil); st != 401 {
		t.Fatalf("replayed cookie after logout: %d", st)
	}

	// A session ends with its token.
	g.do(c, "POST", "/login", "", form, strings.NewReader("token="+read))
	if _, err := g.store.Revoke(context.Background(), readID); err != nil {
		t.Fatal(err)
	}
	if st, _, _ := g.do(c, "GET", "/api/search", "", nil, nil); st != 401 {
		t.Fatalf("session of a revoked token: %d, want 401", st)
	}
}

func TestCanWrite(t *testing.T) {
	ctx := context.Background()
	if !CanWrite(ctx) {
		t.Fatal("no identity (loopback mode) must write as before")
	}
	if CanWrite(WithIdentity(ctx, Identity{Scope: Read})) || !CanWrite(WithIdentity(ctx, Identity{Scope: Write})) {
		t.Fatal("scopes")
	}
}

func TestClientKey(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.2:5555":             "127.0.0.2",
		"[::ffff:10.0.0.1]:1":        "10.0.0.1",
		"[2001:db8:1:2:3:4:5:6]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ff::1]:443":   "2001:db8:1:2::/64",
		"[fe80::1%eth0]:80":          "fe80::/64",
	} {
		if got := clientKey(in); got != want {
			t.Errorf("clientKey(%q) = %q, want %q", in, got, want)
		}
	}
}
