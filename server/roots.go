package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpsrv "github.com/mark3labs/mcp-go/server"
)

// The package tools read the dependencies of "the project": the project
// argument, else the client's MCP roots (roots/list, the folders the user
// opened), else the server's working folder. mcp-go v1.2.1 sends
// roots/list through a session that implements SessionWithRoots (its HTTP
// session does); gno's own stdio transport implements it below, asking
// only a client that declared the roots capability in initialize, and
// caches the answer until the client says the list changed.

// rootsTimeout bounds a roots/list round trip; a client that does not
// answer in time is treated as having no roots (and not asked again).
const rootsTimeout = 2 * time.Second

// rootsCache remembers each session's roots (nil: none or unsupported).
type rootsCache struct {
	m sync.Map // session id -> []string
}

// forget drops a session's roots (notifications/roots/list_changed).
func (c *rootsCache) forget(session string) { c.m.Delete(session) }

// projectDirs are the project folders a package tool reads, and notes
// saying where they came from when the client did not choose.
func (s *Server) projectDirs(ctx context.Context, a args) ([]string, []string) {
	if p := strings.TrimSpace(a.str("project")); p != "" {
		return []string{p}, nil
	}
	if roots := s.clientRoots(ctx); len(roots) > 0 {
		return roots, nil
	}
	dir := s.opts.WorkDir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	return []string{dir}, []string{"project: the server's working folder (" + dir + "); the client gave no roots: pass project to choose"}
}

// clientRoots asks the session's client for its roots (file:// URIs
// turned into folders), once per session.
func (s *Server) clientRoots(ctx context.Context) []string {
	sess := mcpsrv.ClientSessionFromContext(ctx)
	if sess == nil {
		return nil
	}
	if v, ok := s.roots.m.Load(sess.SessionID()); ok {
		return v.([]string)
	}
	if ci, ok := sess.(mcpsrv.SessionWithClientInfo); ok && ci.GetClientCapabilities().Roots == nil {
		s.roots.m.Store(sess.SessionID(), []string(nil))
		return nil
	}
	if _, ok := sess.(mcpsrv.SessionWithRoots); !ok {
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, rootsTimeout)
	defer cancel()
	res, err := s.mcp.RequestRoots(rctx, mcp.ListRootsRequest{Request: mcp.Request{Method: string(mcp.MethodListRoots)}})
	var dirs []string
	if err != nil {
		s.log.Debug("roots/list failed", "err", err)
	} else {
		for _, r := range res.Roots {
			if d := fileURIPath(r.URI); d != "" {
				dirs = append(dirs, d)
			}
		}
	}
	s.roots.m.Store(sess.SessionID(), dirs)
	return dirs
}

// fileURIPath is the local path of a file:// URI ("" for another scheme).
func fileURIPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
		return ""
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		p = strings.TrimPrefix(p, "/")
	}
	return filepath.FromSlash(p)
}

// The stdio session's side of roots/list.

var (
	_ mcpsrv.SessionWithRoots      = (*stdioSession)(nil)
	_ mcpsrv.SessionWithClientInfo = (*stdioSession)(nil)
)

// clientInfo is what initialize told a stdio session about its client.
type clientInfo struct {
	mu   sync.Mutex
	info mcp.Implementation
	caps mcp.ClientCapabilities
}

// GetClientInfo implements mcpsrv.SessionWithClientInfo.
func (s *stdioSession) GetClientInfo() mcp.Implementation {
	s.client.mu.Lock()
	defer s.client.mu.Unlock()
	return s.client.info
}

// SetClientInfo implements mcpsrv.SessionWithClientInfo.
func (s *stdioSession) SetClientInfo(i mcp.Implementation) {
	s.client.mu.Lock()
	defer s.client.mu.Unlock()
	s.client.info = i
}

// GetClientCapabilities implements mcpsrv.SessionWithClientInfo.
func (s *stdioSession) GetClientCapabilities() mcp.ClientCapabilities {
	s.client.mu.Lock()
	defer s.client.mu.Unlock()
	return s.client.caps
}

// SetClientCapabilities implements mcpsrv.SessionWithClientInfo.
func (s *stdioSession) SetClientCapabilities(c mcp.ClientCapabilities) {
	s.client.mu.Lock()
	defer s.client.mu.Unlock()
	s.client.caps = c
}

// ListRoots sends roots/list to the client and waits for its answer.
func (s *stdioSession) ListRoots(ctx context.Context, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	t := s.t
	if t == nil {
		return nil, mcpsrv.ErrRootsNotSupported
	}
	id := "gno-roots-" + strconv.FormatInt(t.nextReply.Add(1), 10)
	key := idKey(json.RawMessage(strconv.Quote(id)))
	ch := make(chan []byte, 1)
	t.replies.Store(key, ch)
	defer t.replies.Delete(key)
	t.out.write(mcp.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Request: mcp.Request{Method: string(mcp.MethodListRoots)}})
	select {
	case line := <-ch:
		var resp struct {
			Result *mcp.ListRootsResult `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			return nil, fmt.Errorf("roots/list answer: %w", err)
		}
		if resp.Error != nil {
			return nil, fmt.Errorf("roots/list: %s (%d)", resp.Error.Message, resp.Error.Code)
		}
		if resp.Result == nil {
			return nil, errors.New("roots/list: empty answer")
		}
		return resp.Result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// reply hands a response to a request the server sent (roots/list) to
// its waiter; it reports whether one was waiting.
func (t *stdioTransport) reply(id json.RawMessage, line []byte) bool {
	v, ok := t.replies.Load(idKey(id))
	if !ok {
		return false
	}
	select {
	case v.(chan []byte) <- append([]byte(nil), line...):
	default:
	}
	return true
}
