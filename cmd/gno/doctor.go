package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gnosearch/gno/inference"
	"github.com/gnosearch/gno/inference/onnx"
	"github.com/gnosearch/gno/models"
	"github.com/gnosearch/gno/retrieval/gnoerr"
	"github.com/gnosearch/gno/retrieval/store"
	"github.com/spf13/cobra"
)

type check struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok, warn, fail
	Detail string `json:"detail"`
}

func newDoctorCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the index, the ONNX Runtime library and the configured models",
		Long: `Check the index (config, database, collection folders, embedding backlog),
that ONNX Runtime loads, and that the configured embedding model and
reranker are installed and run. BM25 search needs no models; vector
search, hybrid queries and reranking do.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			checks := a.doctor(cmd.Context())
			fails := 0
			for _, c := range checks {
				if c.Status == "fail" {
					fails++
				}
			}
			if a.json {
				if err := a.printJSON(map[string]any{"checks": checks, "problems": fails}); err != nil {
					return err
				}
			} else {
				tw := tabwriter.NewWriter(a.stdout, 0, 2, 2, ' ', 0)
				for _, c := range checks {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Status, c.Name, c.Detail)
				}
				tw.Flush()
			}
			if fails > 0 {
				return fmt.Errorf("doctor found %d problem(s); BM25 search (gno search) works without models", fails)
			}
			return nil
		},
	}
}

func (a *app) doctor(ctx context.Context) []check {
	out := a.indexChecks(ctx)
	env, err := a.modelEnv()
	if err != nil {
		return append(out, check{"config", "fail", err.Error()})
	}
	out = append(out, check{"model cache", "ok", env.cache.Dir})
	lib, err := onnx.FindLibrary(onnx.LibrarySearch{ConfigPath: env.cfg.Models.ORTLib, ModelsDir: env.cache.Dir})
	if err == nil {
		err = onnx.Init(lib)
	}
	if err != nil {
		return append(out, check{"ONNX Runtime", "fail", err.Error() +
			"; vector search and reranking are off until it loads: run `gno setup`"})
	}
	_, version, _ := onnx.Loaded()
	out = append(out, check{"ONNX Runtime", "ok", fmt.Sprintf("%s at %s", version, lib)})
	oenv := onnx.Env{ModelsDir: env.cache.Dir, ORTLib: lib, Threads: env.cfg.Models.Threads, Parallel: env.cfg.Models.Parallel, Registry: env.registry}

	name := env.activeEmbed()
	if env.cfg.Models.EmbedBackend.Kind != "" {
		out = append(out, check{"embedder", "ok", "served by " + env.cfg.Models.EmbedBackend.Kind + " (not checked here)"})
	} else {
		out = append(out, embedderCheck(ctx, oenv, name, env.cache))
	}

	switch r := env.cfg.Models.Rerank; {
	case env.cfg.Models.RerankBackend.Kind != "":
		out = append(out, check{"reranker", "ok", "served by " + env.cfg.Models.RerankBackend.Kind + " (not checked here)"})
	case r == "":
		out = append(out, check{"reranker", "warn", "none configured: results are not reranked (set models.rerank, e.g. ms-marco-minilm-l-6-v2)"})
	default:
		out = append(out, rerankerCheck(ctx, oenv, r, env.cfg.Models.RerankMaxTokens))
	}
	return out
}

func embedderCheck(ctx context.Context, env onnx.Env, name string, cache models.Cache) check {
	// A file of the right size can still be damaged; only its checksum
	// tells, and a damaged model would embed garbage without an error.
	if _, err := cache.Installed(name); err == nil {
		if err := cache.Verify(name); err != nil {
			return check{"embedder", "fail", fmt.Sprintf("%s: %v (run `gno models pull %s`)", name, err, name)}
		}
	}
	start := time.Now()
	e, err := onnx.OpenInstalledEmbedder(ctx, env, name)
	if err == nil {
		defer e.Close()
		err = e.Load()
	}
	if errors.Is(err, models.ErrNotInstalled) {
		return check{"embedder", "fail", fmt.Sprintf("%s is not installed: run `gno setup`", name)}
	}
	if err != nil {
		return check{"embedder", "fail", fmt.Sprintf("%s: %v", name, err)}
	}
	loaded := time.Since(start)
	start = time.Now()
	v, err := e.Embed(ctx, []string{"how does gno check its models"}, inference.Query)
	if err != nil {
		return check{"embedder", "fail", fmt.Sprintf("%s: %v", name, err)}
	}
	return check{"embedder", "ok", fmt.Sprintf("%s: %d dims, loaded in %s, one query in %s",
		name, len(v[0]), loaded.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))}
}

func rerankerCheck(ctx context.Context, env onnx.Env, name string, maxTokens int) check {
	r, err := onnx.OpenInstalledReranker(ctx, env, name, maxTokens)
	if err == nil {
		defer r.Close()
		_, err = r.Score(ctx, "doctor check", []string{"a passage"})
	}
	if errors.Is(err, models.ErrNotInstalled) {
		return check{"reranker", "fail", fmt.Sprintf("%s is not installed: run `gno setup`", name)}
	}
	if err != nil {
		return check{"reranker", "fail", fmt.Sprintf("%s: %v", name, err)}
	}
	if r.IsTestModel() {
		return check{"reranker", "fail", fmt.Sprintf("%s is an untrained TEST model: gno never uses it to rank results; configure a real one (e.g. ms-marco-minilm-l-6-v2)", name)}
	}
	return check{"reranker", "ok", name + " loads and scores"}
}

// indexChecks report the index's own health: config, database, folders,
// and vectors still to compute.
func (a *app) indexChecks(ctx context.Context) []check {
	e, err := a.engine(ctx)
	if err != nil {
		return []check{{"config", "fail", err.Error()}}
	}
	st, err := e.Status(ctx)
	if err != nil {
		return []check{{"index", "fail", gnoerr.Public(err)}}
	}
	out := []check{{"index", "ok", fmt.Sprintf("%s: %d collections, %d documents, %d chunks (generation %d)",
		st.DBPath, len(st.Collections), st.TotalDocuments, st.TotalChunks, st.Generation)}}
	switch problems, err := e.Check(ctx); {
	case err != nil:
		out = append(out, check{"index integrity", "fail", gnoerr.Public(err)})
	case len(problems) > 0:
		out = append(out, check{"index integrity", "fail", strings.Join(problems, "; ") + "; rebuild it with `gno update --rebuild`"})
	default:
		out = append(out, check{"index integrity", "ok", "database and word index consistent, no half-indexed document"})
	}
	if st.Server != nil {
		out = append(out, serverChecks(st.Server)...)
	}
	for _, c := range st.Collections {
		if !c.Available {
			out = append(out, check{"collection", "fail", fmt.Sprintf("%s: folder %s is missing", c.Name, c.Path)})
		}
	}
	if st.EmbeddingBacklog > 0 {
		out = append(out, check{"vectors", "warn", fmt.Sprintf("%d chunks have no vector for %s: run `gno embed`", st.EmbeddingBacklog, st.EmbedModel)})
	}
	return out
}

// maxReplicaLag is the delay of a read replica past which doctor warns.
const maxReplicaLag = time.Minute

// serverChecks are doctor's checks of an index on a server (Postgres):
// the connection, TLS, the server's and pgvector's versions, the schema,
// the writer lock's holder and the read replica. Opening the index has
// already refused what cannot work (no pgvector, a server older than
// 16, a replica as the store, a newer schema).
func serverChecks(srv *store.ServerInfo) []check {
	out := []check{{"store server", "ok", fmt.Sprintf("PostgreSQL %s at %s, the writer's server (not in recovery)", srv.Version, srv.Server)}}
	out = append(out, tlsCheck("store TLS", srv.Server, srv.TLS))
	out = append(out, check{"pgvector", "ok", "version " + srv.Vector})
	out = append(out, check{"schema", "ok", "version " + srv.Schema})
	if srv.LockHolder == "" {
		out = append(out, check{"writer lock", "ok", "free: no process is syncing"})
	} else {
		out = append(out, check{"writer lock", "ok", "held by " + srv.LockHolder})
	}
	r := srv.Replica
	if r == nil {
		return out
	}
	switch {
	case r.Problem != "":
		out = append(out, check{"read replica", "fail", r.Server + ": " + r.Problem})
		return out
	case !r.Standby:
		out = append(out, check{"read replica", "warn", r.Server + " is a primary now (promoted): it no longer follows the store; point the store at it, or the read URL at a new replica"})
	case r.Lag() > maxReplicaLag:
		out = append(out, check{"read replica", "warn", replicaLine(r) + ": readers see the index as it was that long ago"})
	default:
		out = append(out, check{"read replica", "ok", "PostgreSQL " + r.Version + " at " + replicaLine(r)})
	}
	return append(out, tlsCheck("replica TLS", r.Server, r.TLS))
}

// tlsCheck warns of an unencrypted connection to a server off this
// machine: a password and the index's text cross the network in clear.
func tlsCheck(name, server, tls string) check {
	switch {
	case tls != "":
		return check{name, "ok", tls}
	case loopback(server):
		return check{name, "ok", "not encrypted, on this machine (loopback)"}
	}
	return check{name, "warn", "not encrypted: add sslmode=verify-full (or require) to the URL"}
}

// loopback reports whether the server URL names this machine.
func loopback(server string) bool {
	u, err := url.Parse(server)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
