package onnx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gnosearch/gno/models"
)

// The library `gno setup` installs for each platform is one FindLibrary
// looks for in the model cache, and the versions agree.
func TestFindLibraryFindsSetupInstalls(t *testing.T) {
	if models.RuntimeVersion != ORTVersion {
		t.Fatalf("models fetches ONNX Runtime %s, onnx needs %s", models.RuntimeVersion, ORTVersion)
	}
	t.Setenv(EnvLibrary, "")
	for _, p := range models.RuntimePlatforms {
		t.Run(p.GOOS+"-"+p.GOARCH, func(t *testing.T) {
			dir := t.TempDir()
			lib := filepath.Join(models.RuntimeDir(dir), p.Library)
			if err := os.MkdirAll(filepath.Dir(lib), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(lib, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := FindLibrary(LibrarySearch{ModelsDir: dir})
			if err != nil || got != lib {
				t.Fatalf("FindLibrary = %q, %v; want %q", got, err, lib)
			}
		})
	}
}
