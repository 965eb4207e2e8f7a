package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Options configure a Guard.
type Options struct {
	// Store holds the tokens. Required.
	Store *Store
	// Logger receives refused attempts (client IP, reason; never a
	// secret). nil logs to stderr: a sharing server must leave a trace.
	Logger *slog.Logger
	// Hosts are the names and IPs clients reach the server by; a request
	// whose Host (port aside) is none of them is refused, as loopback mode
	// refuses a non-loopback Host (DNS rebinding). Empty accepts any.
	Hosts []string
	// Login serves a login page at /login (a token in, a session cookie
	// out) and /logout, and accepts the cookie; browsers asking for a page
	// without one are sent to /login. Off, only Bearer tokens work.
	Login bool
	// Stylesheet, if set, is linked from the login page (a same-origin
	// path such as /assets/style.css).
	Stylesheet string
	// Public are path prefixes served without authentication to GET and
	// HEAD (static assets that hold no document text).
	Public []string
	// FailuresPerMinute is how many failed attempts a client may make
	// before it is refused with 429 (default 10; they refill at that rate).
	FailuresPerMinute int
	// SessionTTL caps a login session (default 12 hours); a session also
	// ends with its token.
	SessionTTL time.Duration
}

// Guard is the sharing mode's authentication middleware.
type Guard struct {
	opts     Options
	store    *Store
	log      *slog.Logger
	hosts    map[string]bool
	limiter  *failLimiter
	sessions *sessions
}

// New builds a Guard.
func New(o Options) (*Guard, error) {
	if o.Store == nil {
		return nil, errors.New("auth: no token store")
	}
	if o.FailuresPerMinute <= 0 {
		o.FailuresPerMinute = 10
	}
	if o.SessionTTL <= 0 {
		o.SessionTTL = 12 * time.Hour
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	g := &Guard{opts: o, store: o.Store, log: log, limiter: newFailLimiter(o.FailuresPerMinute), sessions: newSessions()}
	if len(o.Hosts) > 0 {
		g.hosts = map[string]bool{}
		for _, h := range o.Hosts {
			g.hosts[normHost(h)] = true
		}
	}
	return g, nil
}

// Close writes the tokens' last-used times.
func (g *Guard) Close(ctx context.Context) error { return g.store.Flush(ctx) }

// Identity is who a request authenticated as.
type Identity struct {
	// TokenID and Name are the token's (see gno token list).
	TokenID, Name string
	Scope         Scope
	// Bearer is true when the token came in the Authorization header, a
	// credential a browser never attaches on its own: cross-site request
	// forgery checks (the web app's CSRF token) do not apply to it.
	Bearer bool
}

type identityKey struct{}

// WithIdentity returns ctx carrying id.
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the identity a Guard put in ctx.
func IdentityFrom(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(Identity)
	return id, ok
}

// CanWrite reports whether the request behind ctx may write. Without an
// identity (no guard: loopback mode, stdio, in-process) it is true, and
// the usual --enable-write switch decides alone.
func CanWrite(ctx context.Context) bool {
	id, ok := IdentityFrom(ctx)
	return !ok || id.Scope.CanWrite()
}

// ErrReadOnly is the message a read token gets from a write.
const ErrReadOnly = "this access token is read-only; writes need a token created with `gno token create --write`"

// Wrap returns next behind the guard.
func (g *Guard) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.serve(next, w, r)
	})
}

func (g *Guard) serve(next http.Handler, w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	ip := clientKey(r.RemoteAddr)
	now := time.Now()
	if g.hosts != nil && !g.hosts[normHost(r.Host)] {
		g.refuse(w, r, ip, http.StatusForbidden, "foreign Host", fmt.Sprintf("host %q is not a name this server is reached by", r.Host))
		return
	}
	// A form posted from a page under Referrer-Policy: no-referrer says
	// Origin: null; the browser's Sec-Fetch-Site (which no page can set)
	// then tells a same-origin post.
	if o := r.Header.Get("Origin"); o != "" && (o != "null" || r.Header.Get("Sec-Fetch-Site") != "same-origin") {
		if u, err := url.Parse(o); err != nil || u.Scheme != "https" || !strings.EqualFold(u.Host, r.Host) {
			g.refuse(w, r, ip, http.StatusForbidden, "foreign Origin", fmt.Sprintf("cross-origin request refused (origin %q)", o))
			return
		}
	}
	if tokenInURL(r.URL) {
		// The path is not logged: it may hold the token.
		g.limiter.fail(ip, now)
		g.log.Warn("auth: refused", "ip", ip, "reason", "access token in URL", "method", r.Method)
		writeError(w, http.StatusBadRequest, "BAD_REQUEST", "access tokens in a URL are refused (URLs end up in logs and histories); send the header Authorization: Bearer <token>")
		return
	}
	if strings.HasPrefix(r.URL.Path, "/.well-known/") {
		// No OAuth here: a token-only server has no authorization server
		// or protected resource metadata (RFC 8414, RFC 9728, OpenID), and
		// says so to anyone, signed in or not. A 401 instead would send
		// some MCP clients into an OAuth flow that drops the token they
		// were configured with.
		writeError(w, http.StatusNotFound, "NOT_FOUND", "this server takes access tokens (Authorization: Bearer <token>), not OAuth: it publishes no OAuth metadata")
		return
	}
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && g.public(r.URL.Path) {
		next.ServeHTTP(w, r)
		return
	}
	if g.opts.Login {
		switch r.URL.Path {
		case "/login":
			g.login(w, r, ip)
			return
		case "/logout":
			g.logout(w, r)
			return
		}
	}
	if wait := g.limiter.wait(ip, now); wait > 0 {
		tooMany(w, wait)
		return
	}
	id, ok := g.authenticate(w, r, ip, now)
	if !ok {
		return
	}
	r.Header.Del("Authorization")
	next.ServeHTTP(w, r.WithContext(WithIdentity(r.Context(), id)))
}

// authenticate finds the request's identity; when there is none it has
// answered the request.
func (g *Guard) authenticate(w http.ResponseWriter, r *http.Request, ip string, now time.Time) (Identity, bool) {
	switch hs := r.Header.Values("Authorization"); {
	case len(hs) > 1:
		g.fail(w, r, ip, now, http.StatusBadRequest, "several Authorization headers")
		return Identity{}, false
	case len(hs) == 1:
		secret, err := ParseBearer(hs[0])
		if err != nil {
			g.fail(w, r, ip, now, http.StatusUnauthorized, "malformed Authorization header")
			return Identity{}, false
		}
		tok, err := g.store.Verify(r.Context(), secret)
		if err != nil {
			g.verifyFailed(w, r, ip, now, err)
			return Identity{}, false
		}
		return Identity{TokenID: tok.ID, Name: tok.Name, Scope: tok.Scope, Bearer: true}, true
	}
	if g.opts.Login {
		if c, err := r.Cookie(SessionCookie); err == nil {
			if s, ok := g.sessions.get(c.Value, now); ok {
				tok, err := g.store.Lookup(r.Context(), s.tokenID)
				if err == nil {
					return Identity{TokenID: tok.ID, Name: tok.Name, Scope: tok.Scope}, true
				}
				if !errorsIsAuth(err) {
					// The tokens could not be read: the session
					// stays, this request is refused.
					g.verifyFailed(w, r, ip, now, err)
					return Identity{}, false
				}
				g.sessions.end(c.Value)
				g.log.Info("auth: session ended with its token", "ip", ip, "token", s.tokenID, "reason", err)
			}
		}
		if wantsPage(r) {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return Identity{}, false
		}
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="gno"`)
	writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "an access token is required: send Authorization: Bearer <token> (tokens come from `gno token create`)")
	return Identity{}, false
}

// verifyFailed answers a token the store refused.
func (g *Guard) verifyFailed(w http.ResponseWriter, r *http.Request, ip string, now time.Time, err error) {
	switch {
	case errors.Is(err, ErrExpiredToken):
		g.fail(w, r, ip, now, http.StatusUnauthorized, "expired token")
	case errors.Is(err, ErrInvalidToken):
		g.fail(w, r, ip, now, http.StatusUnauthorized, "unknown or revoked token")
	case r.Context().Err() != nil:
		// The client hung up while its token was looked up: not an
		// outage, and nobody is left to answer.
		return
	default:
		// The tokens cannot be read: admit nobody, blame no client.
		g.log.Error("auth: access tokens unreadable, refusing every request", "err", err)
		writeError(w, http.StatusServiceUnavailable, "UNAVAILABLE", "the server cannot read its access tokens; see its log")
	}
}

// fail counts a failed attempt against the client and refuses it.
func (g *Guard) fail(w http.ResponseWriter, r *http.Request, ip string, now time.Time, status int, reason string) {
	g.limiter.fail(ip, now)
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="gno", error="invalid_token"`)
	}
	g.refuse(w, r, ip, status, reason, "access refused: "+reason)
	if g.limiter.wait(ip, now) > 0 {
		g.log.Warn("auth: client blocked after repeated failures", "ip", ip, "perMinute", g.opts.FailuresPerMinute)
	}
}

// refuse logs and answers a refused request.
func (g *Guard) refuse(w http.ResponseWriter, r *http.Request, ip string, status int, reason, msg string) {
	g.log.Warn("auth: refused", "ip", ip, "reason", reason, "method", r.Method, "path", logPath(r.URL), "status", status)
	code := map[int]string{http.StatusBadRequest: "BAD_REQUEST", http.StatusUnauthorized: "UNAUTHORIZED", http.StatusForbidden: "FORBIDDEN"}[status]
	writeError(w, status, code, msg)
}

func (g *Guard) public(path string) bool {
	for _, p := range g.opts.Public {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// tooMany answers 429 with Retry-After in whole seconds.
func tooMany(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int((wait+time.Second-1)/time.Second))))
	writeError(w, http.StatusTooManyRequests, "RATE_LIMITED", "too many failed attempts from this address; retry later")
}

// writeError answers with the REST API's error shape.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

// tokenInURL reports a credential in the URL: the RFC 6750 access_token
// parameter, or anything shaped like a gno token in the path or query.
func tokenInURL(u *url.URL) bool {
	if u.RawQuery == "" {
		return containsToken(u.Path)
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err == nil && q.Has("access_token") {
		return true
	}
	raw, err := url.QueryUnescape(u.RawQuery)
	if err != nil {
		raw = u.RawQuery
	}
	return containsToken(u.Path) || containsToken(raw) || containsToken(u.RawQuery)
}

// logPath is the path to log: withheld when it holds a token.
func logPath(u *url.URL) string {
	if containsToken(u.Path) {
		return "(withheld: it holds a token)"
	}
	return u.Path
}

// wantsPage reports a browser navigating to a page (sent to the login
// page), as opposed to an API or MCP call (answered 401).
func wantsPage(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		!strings.HasPrefix(r.URL.Path, "/api/") && r.URL.Path != "/mcp" &&
		strings.Contains(r.Header.Get("Accept"), "text/html")
}

// normHost is the lowercased host of a Host header or name, without port,
// brackets or a trailing dot.
func normHost(h string) string {
	if hn, _, err := net.SplitHostPort(h); err == nil {
		h = hn
	}
	return strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
}
