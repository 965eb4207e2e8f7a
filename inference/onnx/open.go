package onnx

import (
	"context"
	"fmt"

	"github.com/gnosearch/gno/models"
)

// Env is where installed models and the runtime are found, as gno's config
// says.
type Env struct {
	// ModelsDir is the model cache (models.DefaultDir when empty).
	ModelsDir string
	// ORTLib is the runtime library path from config; empty means search
	// ($GNO_ORT_LIB, next to the binary, the model cache).
	ORTLib string
	// Threads is the intra-op thread count per forward pass; 0 means
	// DefaultThreads (1, measured best here).
	Threads int
	// Parallel is how many forward passes run at once; 0 means one per core.
	Parallel int
	// Registry supplies current model descriptions (nil: the built-in one).
	Registry *models.Registry
}

func (env Env) registry() *models.Registry {
	if env.Registry != nil {
		return env.Registry
	}
	return models.Builtin()
}

func (env Env) prepare() (models.Cache, error) {
	dir := env.ModelsDir
	if dir == "" {
		var err error
		if dir, err = models.DefaultDir(); err != nil {
			return models.Cache{}, err
		}
	}
	lib, err := FindLibrary(LibrarySearch{ConfigPath: env.ORTLib, ModelsDir: dir})
	if err != nil {
		return models.Cache{}, err
	}
	if err := Init(lib); err != nil {
		return models.Cache{}, err
	}
	return models.Cache{Dir: dir}, nil
}

// OpenInstalledEmbedder opens the installed embedding model called name,
// loading ONNX Runtime first. Errors say what to install: the runtime
// (`gno setup` or $GNO_ORT_LIB) or the model (`gno setup`, `gno models pull NAME`).
func OpenInstalledEmbedder(ctx context.Context, env Env, name string) (*Embedder, error) {
	c, err := env.prepare()
	if err != nil {
		return nil, err
	}
	spec, err := c.Resolve(env.registry(), name)
	if err != nil {
		return nil, fmt.Errorf("embedding model: %w", err)
	}
	return OpenEmbedder(ctx, Options{ModelDir: c.ModelDir(name), Spec: spec, Threads: env.Threads, Parallel: env.Parallel})
}

// OpenInstalledReranker opens the installed cross-encoder called name;
// maxTokens (0 for the model's own) caps the pair length. Callers must
// check IsTestModel before ranking a user's results with it.
func OpenInstalledReranker(ctx context.Context, env Env, name string, maxTokens int) (*Reranker, error) {
	c, err := env.prepare()
	if err != nil {
		return nil, err
	}
	spec, err := c.Resolve(env.registry(), name)
	if err != nil {
		return nil, fmt.Errorf("reranker: %w", err)
	}
	return OpenReranker(ctx, Options{ModelDir: c.ModelDir(name), Spec: spec, Threads: env.Threads, Parallel: env.Parallel, MaxTokens: maxTokens})
}
