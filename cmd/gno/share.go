package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/server/auth"
	"github.com/spf13/cobra"
)

// shareFlags are the sharing mode's flags (--listen-any), the same on
// every command that serves HTTP.
type shareFlags struct {
	tlsCert, tlsKey string
	hosts           []string
}

func addShareFlags(cmd *cobra.Command, s *shareFlags) {
	f := cmd.Flags()
	f.StringVar(&s.tlsCert, "tls-cert", "", "with --listen-any: the TLS certificate `FILE` (PEM; default: a self-signed one gno makes)")
	f.StringVar(&s.tlsKey, "tls-key", "", "with --listen-any: the certificate's key `FILE` (PEM)")
	f.StringArrayVar(&s.hosts, "host", nil, "with --listen-any: another `NAME` clients reach the server by (certificate and Host check)")
}

// check refuses sharing flags without --listen-any (they would be
// ignored, and the user believes the server is on HTTPS).
func (s shareFlags) check(listenAny bool) error {
	if !listenAny && (s.tlsCert != "" || s.tlsKey != "" || len(s.hosts) > 0) {
		return gnoerr.New(gnoerr.InvalidInput, "--tls-cert, --tls-key and --host belong to the sharing mode: add --listen-any")
	}
	return nil
}

// sharing is what the sharing mode adds to a server: HTTPS and the guard.
type sharing struct {
	cert      *auth.Cert
	guard     *auth.Guard
	closeKeep func() // closes the index the tokens are read from
}

// close writes the tokens' last-used times and closes what the sharing
// mode opened.
func (sh *sharing) close(ctx context.Context) {
	sh.guard.Close(ctx)
	sh.closeKeep()
}

// startSharing prepares --listen-any for a server bound to addr: at least
// one live access token, the TLS certificate, the guard. It prints the
// certificate's fingerprint on stderr for teammates to pin. Refused
// attempts are logged to logFile, else to stderr.
func startSharing(ctx context.Context, a *app, who, addr string, sf shareFlags, login bool, logger *slog.Logger, logFile string) (*sharing, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, gnoerr.Wrap(gnoerr.InvalidInput, err, "invalid address %q (want HOST:PORT, e.g. 0.0.0.0:7777)", addr)
	}
	p, err := config.Resolve(a.index, a.configPath)
	if err != nil {
		return nil, gnoerr.Wrap(gnoerr.InvalidInput, err, "index")
	}
	store, closeKeep, err := a.tokenStore(ctx)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			closeKeep()
		}
	}()
	n, err := store.Active(ctx)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, gnoerr.New(gnoerr.InvalidInput, "--listen-any shares index %q over the network and needs an access token first: "+
			"create one with `gno token create --read` (or --write), give it to your teammates, and start again", p.Index)
	}
	names := auth.ServedNames(host, sf.hosts...)
	cert, err := auth.LoadTLS(auth.TLSOptions{CertFile: sf.tlsCert, KeyFile: sf.tlsKey, Dir: filepath.Join(p.IndexDir, "tls"), Hosts: names})
	if err != nil {
		return nil, err
	}
	if logFile == "" && !a.verbose {
		logger = slog.New(slog.NewTextHandler(a.stderr, nil))
	}
	guard, err := auth.New(auth.Options{Store: store, Logger: logger, Hosts: append(names, cert.Names...), Login: login,
		Stylesheet: "/assets/style.css", Public: []string{"/assets/"}})
	if err != nil {
		return nil, err
	}
	printCert(a.stderr, who, cert)
	ok = true
	return &sharing{cert: cert, guard: guard, closeKeep: closeKeep}, nil
}

func printCert(w io.Writer, who string, c *auth.Cert) {
	kind := "given"
	switch {
	case c.Created:
		kind = "self-signed, new: hand the fingerprint to your teammates"
	case c.Generated:
		kind = "self-signed"
	}
	fmt.Fprintf(w, "%s: TLS certificate %s (%s, until %s)\n", who, c.File, kind, c.NotAfter.Format("2006-01-02"))
	fmt.Fprintf(w, "%s: certificate SHA-256 fingerprint %s\n", who, c.Fingerprint)
	fmt.Fprintf(w, "%s: public key pin (curl --pinnedpubkey) %s\n", who, c.PublicKeyPin)
}
