package models

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// ManifestFile is written into a model's folder last, after every file is
// verified; a folder without it is not an installed model.
const ManifestFile = "manifest.json"

// EnvHome and EnvModels name the environment variables that move gno's
// data and, separately, its model cache.
const (
	EnvHome   = "GNO_HOME"
	EnvModels = "GNO_MODELS_DIR"
)

// DefaultDir is the model cache used when config names none:
// $GNO_MODELS_DIR, else $GNO_HOME/models, else $XDG_CACHE_HOME/gno/models,
// else ~/.cache/gno/models.
func DefaultDir() (string, error) {
	if d := os.Getenv(EnvModels); d != "" {
		return d, nil
	}
	if d := os.Getenv(EnvHome); d != "" {
		return filepath.Join(d, "models"), nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find model cache: %w", err)
	}
	return filepath.Join(base, "gno", "models"), nil
}

// Manifest records an installed model: its description as installed and
// the verified checksum of every file, so a cache is self-describing even
// for models that are not in the built-in registry.
type Manifest struct {
	Model       Model             `json:"model"`
	SHA256      map[string]string `json:"sha256"`
	Source      string            `json:"source"`
	InstalledAt time.Time         `json:"installed_at"`
}

// Cache is a model cache folder: one sub-folder per installed model.
type Cache struct {
	Dir string
}

// ModelDir is where the named model's files live.
func (c Cache) ModelDir(name string) string { return filepath.Join(c.Dir, name) }

// Path is the path of one file of an installed model.
func (c Cache) Path(name, file string) string { return filepath.Join(c.Dir, name, file) }

// ErrNotInstalled means the model has no verified install in the cache.
var ErrNotInstalled = errors.New("model not installed")

// Manifest reads the named model's manifest.
func (c Cache) Manifest(name string) (*Manifest, error) {
	p := c.Path(name, ManifestFile)
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s in %s: %w (run `gno models pull %s`)", name, c.Dir, ErrNotInstalled, name)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if m.Model.Name != name {
		return nil, fmt.Errorf("read %s: manifest is for %q", p, m.Model.Name)
	}
	return &m, nil
}

// Installed returns the installed model called name, checking that its
// files are all present with their recorded sizes (a full checksum pass
// is Verify's job).
func (c Cache) Installed(name string) (Model, error) {
	man, err := c.Manifest(name)
	if err != nil {
		return Model{}, err
	}
	for _, f := range man.Model.Files {
		p := c.Path(name, f.Name)
		fi, err := os.Stat(p)
		if err != nil {
			return Model{}, fmt.Errorf("model %s: %w (run `gno models pull %s`)", name, err, name)
		}
		if f.Size > 0 && fi.Size() != f.Size {
			return Model{}, fmt.Errorf("model %s: %s is %d bytes, want %d (run `gno models pull %s`)", name, p, fi.Size(), f.Size, name)
		}
	}
	return man.Model, nil
}

// List returns the manifests of every installed model, sorted by name.
func (c Cache) List() ([]Manifest, error) {
	ents, err := os.ReadDir(c.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list models in %s: %w", c.Dir, err)
	}
	var out []Manifest
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		m, err := c.Manifest(e.Name())
		if err != nil {
			continue // not a model folder (or a partial one)
		}
		out = append(out, *m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Model.Name < out[j].Model.Name })
	return out, nil
}

// Verify re-hashes every file of an installed model against its manifest.
func (c Cache) Verify(name string) error {
	man, err := c.Manifest(name)
	if err != nil {
		return err
	}
	for file, want := range man.SHA256 {
		got, _, err := hashFile(c.Path(name, file))
		if err != nil {
			return fmt.Errorf("verify %s: %w", name, err)
		}
		if got != want {
			return fmt.Errorf("verify %s: %s has sha256 %s, manifest says %s", name, file, got, want)
		}
	}
	return nil
}

// Remove deletes an installed model's folder.
func (c Cache) Remove(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("remove model %q: not a model name", name)
	}
	dir := c.ModelDir(name)
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("remove model %s: %w", name, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove model %s: %w", name, err)
	}
	return nil
}

// writeManifest records an install; it is the last step, so readers never
// see a model whose files are not all in place.
func (c Cache) writeManifest(m Model, sums map[string]string, source string) error {
	man := Manifest{Model: m, SHA256: sums, Source: source, InstalledAt: time.Now().UTC()}
	b, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return err
	}
	p := c.Path(m.Name, ManifestFile)
	// A temporary file of its own: pulls of one model at once each write
	// a manifest, and one shared name would be renamed away under another.
	tmp, err := os.CreateTemp(filepath.Dir(p), ManifestFile+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}

// Resolve returns the description to run an installed model with: the
// registry's current one when the installed files are exactly the ones it
// pins (so fixes to prefixes or pooling reach existing installs), else the
// one recorded at install time (models imported from an export, or
// installed from an older registry).
func (c Cache) Resolve(reg *Registry, name string) (Model, error) {
	installed, err := c.Installed(name)
	if err != nil {
		return Model{}, err
	}
	if reg == nil {
		return installed, nil
	}
	cur, err := reg.Lookup(name)
	if err != nil {
		return installed, nil
	}
	man, err := c.Manifest(name)
	if err != nil {
		return Model{}, err
	}
	for _, f := range cur.Files {
		if f.SHA256 == "" || man.SHA256[f.Name] != f.SHA256 {
			return installed, nil
		}
	}
	cur.Files = append([]File(nil), cur.Files...)
	for i, f := range cur.Files { // sizes as installed
		if g, ok := installed.File(f.Name); ok {
			cur.Files[i].Size = g.Size
		}
	}
	return cur, nil
}
