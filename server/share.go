package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/gnosearch/gno/server/auth"
	"github.com/gnosearch/gno/server/listen"
	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"
)

// The sharing mode (--listen-any) puts an auth.Guard in front of the MCP
// endpoint; a read token must never reach a write tool. Three layers say
// so: the HTTP request is refused with 403 before mcp-go sees it
// (refuseReadOnlyWrites), tools/list and tools/call hide the write tools
// from a read identity (filterTools), and Call checks again for the REST
// API. Without a guard there is no identity and nothing changes.

// MCPHandler is the streamable HTTP transport at EndpointPath, with the
// Origin check of loopback mode (unless listenAny) and the read-token
// refusal of the sharing mode. stop ends its sessions; call it when the
// HTTP server has shut down. The daemon and `gno serve --listen-any`
// mount it beside the web app.
func (s *Server) MCPHandler(listenAny bool) (h http.Handler, stop func(context.Context) error) {
	sh := mcpsrv.NewStreamableHTTPServer(s.mcp,
		mcpsrv.WithEndpointPath(EndpointPath),
		mcpsrv.WithStateful(true),
		mcpsrv.WithSessionIdleTTL(time.Hour),
		mcpsrv.WithStreamableHTTPLogger(s.log),
	)
	return listen.CheckOrigin(s.refuseReadOnlyWrites(fixRPCErrors(sh)), listenAny, s.log), sh.Shutdown
}

// maxMCPBody bounds the request body the write check reads (a tools/call
// of gno_capture carries a whole document).
const maxMCPBody = 32 << 20

// refuseReadOnlyWrites answers 403 to a POST that calls a write tool
// (alone or in a batch) for a read-only identity.
func (s *Server) refuseReadOnlyWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || auth.CanWrite(r.Context()) {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxMCPBody+1))
		if err != nil || len(body) > maxMCPBody {
			http.Error(w, "request body unreadable or too large", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if id, ok := s.callsWriteTool(body); ok {
			s.log.Warn("refused a write tool to a read-only token", "path", r.URL.Path)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			json.NewEncoder(w).Encode(mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id),
				Error: mcp.NewJSONRPCErrorDetails(mcp.INVALID_REQUEST, auth.ErrReadOnly, nil)})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// callsWriteTool reports whether a JSON-RPC message or batch calls a
// registered write tool, and the id of the first such call. A body that
// is not JSON-RPC is left to mcp-go to refuse.
func (s *Server) callsWriteTool(body []byte) (any, bool) {
	type call struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	var batch []call
	if err := json.Unmarshal(body, &batch); err != nil {
		var one call
		if json.Unmarshal(body, &one) != nil {
			return nil, false
		}
		batch = []call{one}
	}
	for _, c := range batch {
		if c.Method == string(mcp.MethodToolsCall) && s.isWriteTool(c.Params.Name) {
			return c.ID, true
		}
	}
	return nil, false
}

// isWriteTool reports a registered tool that is not read-only.
func (s *Server) isWriteTool(name string) bool {
	d, ok := s.defs[name]
	return ok && !d.readOnly
}

// filterTools hides the write tools from a read-only identity, in
// tools/list and tools/call alike.
func (s *Server) filterTools(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
	if auth.CanWrite(ctx) {
		return tools
	}
	out := tools[:0:0]
	for _, t := range tools {
		if !s.isWriteTool(t.Name) {
			out = append(out, t)
		}
	}
	return out
}
