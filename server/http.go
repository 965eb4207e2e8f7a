package server

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/server/listen"
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
	if !o.ListenAny && !listen.IsLoopback(host) {
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
	return listen.Run(ctx, hs, ln, o.Ready, stop)
}
