package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
)

// HTTPOptions configure ServeHTTP.
type HTTPOptions struct {
	// ListenAny allows a non-loopback listen address and cross-origin
	// browser requests. Without it gno serves 127.0.0.1/::1/localhost only.
	ListenAny bool
	// Ready is called with the bound address once the server accepts
	// connections (useful with port 0).
	Ready func(addr string)
	// TLS, if not nil, serves HTTPS only (the sharing mode: a plain HTTP
	// request gets net/http's 400 "Client sent an HTTP request to an HTTPS
	// server").
	TLS *tls.Config
	// Guard, if not nil, wraps the endpoint (the sharing mode's
	// auth.Guard.Wrap).
	Guard func(http.Handler) http.Handler
}

// EndpointPath is where the streamable HTTP transport is served.
const EndpointPath = "/mcp"

// ServeHTTP serves MCP's streamable HTTP transport on addr until ctx ends.
// Requests reaching a loopback listener must carry a loopback Host header
// (mcp-go's DNS-rebinding check) and, when they come from a browser, a
// loopback Origin.
func (s *Server) ServeHTTP(ctx context.Context, addr string, o HTTPOptions) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return gnoerr.Wrap(gnoerr.InvalidInput, err, "invalid --http address %q (want HOST:PORT, e.g. 127.0.0.1:8765)", addr)
	}
	if !o.ListenAny && !isLoopback(host) {
		return gnoerr.New(gnoerr.InvalidInput, "refusing to listen on %q: it is not a loopback address; use 127.0.0.1:PORT, or pass --listen-any to expose the index to the network", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	h, stop := s.MCPHandler(o.ListenAny)
	mux := http.NewServeMux()
	mux.Handle(EndpointPath, h)
	var root http.Handler = mux
	if o.Guard != nil {
		root = o.Guard(mux)
	}
	if o.TLS != nil {
		ln = tls.NewListener(ln, o.TLS)
	}
	hs := &http.Server{Handler: root, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	s.log.Info("serving MCP over HTTP", "addr", ln.Addr().String(), "path", EndpointPath)
	return RunHTTP(ctx, hs, ln, o.Ready, stop)
}

// RunHTTP serves hs on ln until ctx ends or the server fails, then shuts
// down stop (if not nil) and hs, giving open requests 5 seconds. ready, if
// not nil, gets the bound address once the server is serving.
func RunHTTP(ctx context.Context, hs *http.Server, ln net.Listener, ready func(addr string), stop func(context.Context) error) error {
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

// checkOrigin refuses browser requests from non-loopback origins, the
// other half of DNS-rebinding protection.
func (s *Server) checkOrigin(next http.Handler, any bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !any {
			u, err := url.Parse(o)
			if err != nil || !isLoopback(u.Hostname()) {
				s.log.Warn("refused request from foreign origin", "origin", o)
				http.Error(w, fmt.Sprintf("Forbidden: origin %q is not allowed", o), http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func isLoopback(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
