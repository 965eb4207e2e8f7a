package onnx

import (
	"context"
	"errors"
	"testing"

	"github.com/gnosearch/gno/models"
)

// testCache returns the model cache with ONNX Runtime loaded, or skips the
// test when `make setup` / `make models` have not run on this machine.
func testCache(t testing.TB) models.Cache {
	t.Helper()
	dir, err := models.DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	lib, err := FindLibrary(LibrarySearch{ModelsDir: dir})
	if errors.Is(err, ErrNoLibrary) {
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := Init(lib); err != nil {
		t.Fatal(err)
	}
	return models.Cache{Dir: dir}
}

// openInstalled opens an installed embedder, or skips when it is not
// installed (run `make models`).
func openInstalled(t testing.TB, c models.Cache, name string, threads int) *Embedder {
	t.Helper()
	spec, err := c.Installed(name)
	if errors.Is(err, models.ErrNotInstalled) {
		t.Skipf("skipping: model %s not installed (run `make models`)", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	e, err := OpenEmbedder(context.Background(), Options{ModelDir: c.ModelDir(name), Spec: spec, Threads: threads})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}
