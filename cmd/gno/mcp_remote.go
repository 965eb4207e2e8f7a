package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"

	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/server"
	"github.com/gnosearch/gno/server/auth"
	"github.com/gnosearch/gno/server/remote"
	"github.com/spf13/cobra"
)

// remoteFlags are `gno mcp --remote`'s: the team server, its pinned
// certificate and where the token is. The token itself is never a flag.
type remoteFlags struct {
	url, fingerprint, tokenFile, tokenEnv string
}

func addRemoteFlags(cmd *cobra.Command, r *remoteFlags) {
	f := cmd.Flags()
	f.StringVar(&r.url, "remote", "", "bridge stdio to the team server at `URL` (https://HOST:PORT from gno serve --listen-any)")
	f.StringVar(&r.fingerprint, "fingerprint", "", "with --remote: trust the server certificate with this SHA-256 `FINGERPRINT` (as gno serve printed it); connects directly, ignoring HTTPS_PROXY")
	f.StringVar(&r.tokenFile, "token-file", "", "with --remote: read the access token from `FILE` (default: the environment variable GNO_TOKEN)")
	f.StringVar(&r.tokenEnv, "token-env", remote.TokenEnv, "with --remote: the environment variable holding the access token (its `NAME`)")
}

// check refuses the --remote companions without --remote, and a token
// given where a variable's name belongs.
func (r remoteFlags) check() error {
	if r.url == "" && (r.fingerprint != "" || r.tokenFile != "" || r.tokenEnv != remote.TokenEnv) {
		return gnoerr.New(gnoerr.InvalidInput, "--fingerprint, --token-file and --token-env go with --remote URL")
	}
	if auth.ParseToken(r.tokenEnv) == nil {
		return gnoerr.New(gnoerr.InvalidInput, "--token-env takes the name of an environment variable, and that is an access token: "+
			"a token never goes on a command line or into a config (revoke this one with gno token revoke if it was shared)")
	}
	return nil
}

// installArgs are the arguments of a client entry running the bridge,
// and the variable the client must pass ("" with a token file).
func (r remoteFlags) installArgs(a *app, enableWrite bool) ([]string, string, error) {
	if err := r.check(); err != nil {
		return nil, "", err
	}
	if enableWrite {
		return nil, "", gnoerr.New(gnoerr.InvalidInput, "--enable-write does not go with --remote: on a team server the access token decides what you may write")
	}
	u, err := remote.Endpoint(r.url)
	if err != nil {
		return nil, "", err
	}
	args := []string{"mcp", "--remote", u}
	if r.fingerprint != "" {
		p, err := remote.ParsePin(r.fingerprint)
		if err != nil {
			return nil, "", gnoerr.Wrap(gnoerr.InvalidInput, err, "--fingerprint")
		}
		args = append(args, "--fingerprint", p.String())
	} else {
		fmt.Fprintln(a.stderr, "gno mcp install: no --fingerprint: the server's certificate must then be signed by an authority this machine trusts (gno's own self-signed one is not)")
	}
	if r.tokenFile != "" {
		abs, err := filepath.Abs(r.tokenFile)
		if err != nil {
			return nil, "", fmt.Errorf("--token-file: %w", err)
		}
		if _, warn, err := remote.LoadToken("", abs, os.Getenv); err != nil {
			fmt.Fprintf(a.stderr, "gno mcp install: %v (the entry is written; the bridge reads the file when the client starts it)\n", err)
		} else if warn != "" {
			fmt.Fprintf(a.stderr, "gno mcp install: %s\n", warn)
		}
		return append(args, "--token-file", abs), "", nil
	}
	if r.tokenEnv != remote.TokenEnv {
		args = append(args, "--token-env", r.tokenEnv)
	}
	return args, r.tokenEnv, nil
}

// options builds the bridge's options; a warning, if any, is for stderr.
func (r remoteFlags) options() (remote.Options, string, error) {
	var o remote.Options
	u, err := remote.Endpoint(r.url)
	if err != nil {
		return o, "", err
	}
	o.URL = u
	if r.fingerprint != "" {
		p, err := remote.ParsePin(r.fingerprint)
		if err != nil {
			return o, "", gnoerr.Wrap(gnoerr.InvalidInput, err, "--fingerprint")
		}
		o.Pin = &p
	}
	tok, warn, err := remote.LoadToken(r.tokenEnv, r.tokenFile, os.Getenv)
	if err != nil {
		return o, "", err
	}
	o.Token = tok
	return o, warn, nil
}

// serveRemote is `gno mcp --remote`: JSON-RPC on stdin/stdout, relayed to
// the team server. A configuration error (no token, a malformed pin) is
// printed on stderr and given as the answer to every request, so the
// client shows it, until the client closes stdin.
func serveRemote(ctx context.Context, a *app, r remoteFlags, f mcpFlags) error {
	if f.httpAddr != "" || f.listenAny || f.enableWrite || f.share.tlsCert != "" || len(f.share.hosts) > 0 {
		return gnoerr.New(gnoerr.InvalidInput, "--remote bridges to a team server: --http, --listen-any, --tls-* and --enable-write serve an index here "+
			"(on the team server, the access token decides what you may write)")
	}
	log := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	tlog, closeLog, err := newMCPLogger(f.logFile, a.verbose)
	if err != nil {
		return err
	}
	defer closeLog()
	out, err := server.ProtectStdout()
	if err != nil {
		return err
	}
	defer out.Close()
	o, warn, err := r.options()
	if err != nil {
		fmt.Fprintf(a.stderr, "gno mcp --remote: %v\n", err)
		return remote.Refuse(os.Stdin, out, err)
	}
	if warn != "" {
		log.Warn("gno mcp --remote: " + warn)
	}
	o.Log, o.TransportLog = log, tlog
	return remote.Run(ctx, os.Stdin, out, o)
}

// remoteHint tells a sharing server's owner how teammates' MCP clients
// reach it through the bridge (ADDR stands for the bound address). A
// generated certificate is pinned by its fingerprint; a given one, which a
// CA signed and which renews, is not.
func remoteHint(c *auth.Cert) string {
	pin := ""
	if c.Generated {
		pin = " --fingerprint " + c.Fingerprint
	}
	return "stdio MCP clients (Claude Desktop …) reach it with: gno mcp install -t CLIENT --remote https://ADDR" + pin + " (their token in GNO_TOKEN)"
}

// shownAddr is a bound address as teammates dial it: HOST for an
// unspecified IP (0.0.0.0, ::), which no client can reach.
func shownAddr(bound string) string {
	host, port, err := net.SplitHostPort(bound)
	if ip := net.ParseIP(host); err == nil && ip != nil && ip.IsUnspecified() {
		return net.JoinHostPort("HOST", port)
	}
	return bound
}
