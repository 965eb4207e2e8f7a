package main

import (
	"context"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/gnosearch/gno/retrieval"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/gnosearch/gno/server/auth"
	"github.com/spf13/cobra"
)

func init() { extraCommands = append(extraCommands, newTokenCmd) }

// tokenStore opens the access tokens of the selected index: they live in
// the index (its SQLite file, or its Postgres database, shared by every
// server of it). close closes the index.
func (a *app) tokenStore(ctx context.Context) (st *auth.Store, close func(), err error) {
	p, err := config.Resolve(a.index, a.configPath)
	if err != nil {
		return nil, nil, gnoerr.Wrap(gnoerr.InvalidInput, err, "index")
	}
	cfg, err := config.Load(p.ConfigFile)
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(p.IndexDir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("create %s: %w", p.IndexDir, err)
	}
	loc := retrieval.StoreLocation(p, cfg)
	b, err := store.OpenBackend(ctx, loc)
	if err != nil {
		return nil, nil, gnoerr.Wrap(gnoerr.Unavailable, err, "open index %s for its access tokens", store.Redact(loc))
	}
	return auth.NewStore(b, p.IndexDir), func() { b.Close() }, nil
}

// newTokenCmd is `gno token`: the access tokens of the sharing mode.
func newTokenCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Manage access tokens for sharing an index (gno serve --listen-any)",
		Long: `Access tokens let teammates use an index shared with gno serve --listen-any:
agents send one as "Authorization: Bearer <token>", people paste one into the
web app's sign-in page. A read token searches and reads; a write token also
syncs, embeds, tags and captures (when the server runs with --enable-write).

Tokens are stored hashed (SHA-256) in the index itself (its SQLite file, or
its PostgreSQL database, so every server of a shared index honours them);
the secret is printed once, by create. Revoking takes effect at once, in
every running server from its next request.`,
	}
	cmd.AddCommand(newTokenCreateCmd(a), newTokenListCmd(a), newTokenRevokeCmd(a))
	return cmd
}

func newTokenCreateCmd(a *app) *cobra.Command {
	var read, write bool
	var expires, name string
	c := &cobra.Command{
		Use:   "create (--read | --write) [--expires 30d] [--name NAME]",
		Short: "Create an access token and print it (once)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if read == write {
				return gnoerr.New(gnoerr.InvalidInput, "say what the token may do: --read or --write")
			}
			scope := auth.Read
			if write {
				scope = auth.Write
			}
			ttl, err := auth.ParseTTL(expires)
			if err != nil {
				return err
			}
			st, done, err := a.tokenStore(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			secret, tok, err := st.Create(cmd.Context(), name, scope, ttl)
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(map[string]any{"token": secret, "id": tok.ID, "name": tok.Name, "scope": tok.Scope,
					"created": tok.Created, "expires": optTime(tok.Expires)})
			}
			// The secret alone on stdout, so TOKEN=$(gno token create --read) works.
			fmt.Fprintln(a.stdout, secret)
			fmt.Fprintf(a.stderr, "gno: created %s token %s%s, %s. It is shown only now: hand it over safely; revoke it with `gno token revoke %s`.\n",
				tok.Scope, tok.ID, quoteName(tok.Name), expiryText(tok.Expires), tok.ID)
			return nil
		},
	}
	f := c.Flags()
	f.BoolVar(&read, "read", false, "the token may search and read")
	f.BoolVar(&write, "write", false, "the token may also write (sync, embed, tag, capture)")
	f.StringVar(&expires, "expires", "", "lifetime, e.g. 30d, 2w or 12h (default: never)")
	f.StringVar(&name, "name", "", "a name to tell the token apart (who or what holds it)")
	return c
}

func newTokenListCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List access tokens (never their secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, done, err := a.tokenStore(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			toks, err := st.List(cmd.Context())
			if err != nil {
				return err
			}
			if a.json {
				out := make([]map[string]any, 0, len(toks))
				for _, t := range toks {
					out = append(out, map[string]any{"id": t.ID, "name": t.Name, "scope": t.Scope, "created": t.Created,
						"expires": optTime(t.Expires), "lastUsed": optTime(t.LastUsed), "expired": t.Expired(time.Now())})
				}
				return a.printJSON(out)
			}
			if len(toks) == 0 {
				fmt.Fprintln(a.stdout, "No access tokens. Create one with: gno token create --read")
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tSCOPE\tCREATED\tEXPIRES\tLAST USED")
			now := time.Now()
			for _, t := range toks {
				exp := "never"
				if !t.Expires.IsZero() {
					exp = t.Expires.Local().Format("2006-01-02 15:04")
					if t.Expired(now) {
						exp += " (expired)"
					}
				}
				used := "never"
				if !t.LastUsed.IsZero() {
					used = t.LastUsed.Local().Format("2006-01-02 15:04")
				}
				name := t.Name
				if name == "" {
					name = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, name, t.Scope, t.Created.Local().Format("2006-01-02 15:04"), exp, used)
			}
			return tw.Flush()
		},
	}
}

func newTokenRevokeCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke an access token (at once, also in a running server)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, done, err := a.tokenStore(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			tok, err := st.Revoke(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(map[string]any{"revoked": tok.ID, "name": tok.Name, "scope": tok.Scope})
			}
			fmt.Fprintf(a.stdout, "Revoked %s token %s%s.\n", tok.Scope, tok.ID, quoteName(tok.Name))
			return nil
		},
	}
}

func optTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

func quoteName(n string) string {
	if n == "" {
		return ""
	}
	return fmt.Sprintf(" (%q)", n)
}

func expiryText(t time.Time) string {
	if t.IsZero() {
		return "never expires"
	}
	return "expires " + t.Local().Format("2006-01-02 15:04")
}
