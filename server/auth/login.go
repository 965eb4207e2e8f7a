package auth

import (
	"errors"
	"html/template"
	"mime"
	"net/http"
	"strings"
	"time"
)

// loginCSP lets the login page post its form and load the stylesheet,
// nothing else (no script at all).
const loginCSP = "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>gno · sign in</title>{{if .Stylesheet}}<link rel="stylesheet" href="{{.Stylesheet}}">{{end}}</head>
<body><main class="login">
<h1>gno</h1>
{{if .Name}}<p>Signed in as <strong>{{.Name}}</strong> ({{.Scope}} access). <a href="/">Search</a></p>
<form method="post" action="/logout"><button type="submit">Sign out</button></form>
{{else}}<p>This index is shared. Sign in with an access token (ask its owner; they make one with <code>gno token create --read</code>).</p>
{{if .Error}}<p class="error" role="alert">{{.Error}}</p>{{end}}
<form method="post" action="/login">
<label>Access token <input type="password" name="token" autocomplete="off" required autofocus></label>
<button type="submit">Sign in</button>
</form>{{end}}
</main></body></html>
`))

type loginView struct {
	Stylesheet, Error, Name string
	Scope                   Scope
}

// login serves the login page (GET) and signs in (POST: a token in, a
// session cookie out).
func (g *Guard) login(w http.ResponseWriter, r *http.Request, ip string) {
	now := time.Now()
	v := loginView{Stylesheet: g.opts.Stylesheet}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		if c, err := r.Cookie(SessionCookie); err == nil {
			if s, ok := g.sessions.get(c.Value, now); ok {
				if tok, err := g.store.Lookup(r.Context(), s.tokenID); err == nil {
					v.Name, v.Scope = tok.Name, tok.Scope
					if v.Name == "" {
						v.Name = "token " + tok.ID
					}
				}
			}
		}
		g.page(w, http.StatusOK, v)
		return
	case http.MethodPost:
	default:
		w.Header().Set("Allow", "GET, POST")
		writeError(w, http.StatusMethodNotAllowed, "BAD_REQUEST", "use GET or POST")
		return
	}
	if s := r.Header.Get("Sec-Fetch-Site"); s == "cross-site" || s == "same-site" {
		g.refuse(w, r, ip, http.StatusForbidden, "cross-site login", "cross-site sign-in refused")
		return
	}
	if wait := g.limiter.wait(ip, now); wait > 0 {
		tooMany(w, wait)
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		writeError(w, http.StatusBadRequest, "BAD_REQUEST", "sign in with the form (application/x-www-form-urlencoded)")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "BAD_REQUEST", "unreadable form")
		return
	}
	tok, err := g.store.Verify(r.Context(), strings.TrimSpace(r.PostForm.Get("token")))
	if err != nil {
		if !errorsIsAuth(err) {
			g.verifyFailed(w, r, ip, now, err)
			return
		}
		g.limiter.fail(ip, now)
		g.log.Warn("auth: refused", "ip", ip, "reason", "login with a wrong, revoked or expired token", "method", r.Method, "path", logPath(r.URL), "status", http.StatusUnauthorized)
		v.Error = "That token is wrong, revoked or expired."
		g.page(w, http.StatusUnauthorized, v)
		return
	}
	sid, exp, err := g.sessions.create(tok, g.opts.SessionTTL, now)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "UNAVAILABLE", err.Error())
		return
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: sid, Path: "/", Expires: exp, MaxAge: int(exp.Sub(now).Seconds()),
		Secure: true, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	g.log.Info("auth: signed in", "ip", ip, "token", tok.ID)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// logout ends the session (POST only: a link cannot sign anyone out).
func (g *Guard) logout(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, "BAD_REQUEST", "sign out with POST /logout")
		return
	}
	if c, err := r.Cookie(SessionCookie); err == nil {
		g.sessions.end(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1, Secure: true, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

func (g *Guard) page(w http.ResponseWriter, status int, v loginView) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", loginCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	// same-origin, not no-referrer: the sign-in form's post then carries
	// its real Origin.
	h.Set("Referrer-Policy", "same-origin")
	w.WriteHeader(status)
	loginPage.Execute(w, v)
}

func errorsIsAuth(err error) bool {
	return errors.Is(err, ErrInvalidToken) || errors.Is(err, ErrExpiredToken)
}
