// Package listen is the local HTTP serving gno's MCP endpoint and its web
// app share: which hosts count as loopback, the Origin check that is the
// other half of DNS-rebinding protection, and one serve/shutdown loop. It
// owns no routes and must not import the engine or the MCP server.
package listen

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Run serves hs on ln until ctx ends or the server fails, then shuts down
// stop (if not nil) and hs, giving open requests 5 seconds. ready, if not
// nil, gets the bound address once the server is serving.
func Run(ctx context.Context, hs *http.Server, ln net.Listener, ready func(addr string), stop func(context.Context) error) error {
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if stop != nil {
		_ = stop(sctx)
	}
	_ = hs.Shutdown(sctx)
	return nil
}

// CheckOrigin wraps next so that, unless listenAny, a browser request
// from a non-loopback Origin is refused (logged to log).
func CheckOrigin(next http.Handler, listenAny bool, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !listenAny {
			u, err := url.Parse(o)
			if err != nil || !IsLoopback(u.Hostname()) {
				log.Warn("refused request from foreign origin", "origin", o)
				http.Error(w, fmt.Sprintf("Forbidden: origin %q is not allowed", o), http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// IsLoopback reports whether host (a name or IP, brackets allowed) is
// localhost or a loopback address.
func IsLoopback(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
