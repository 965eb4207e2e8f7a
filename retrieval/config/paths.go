package config

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// Paths are the directories one index lives in.
type Paths struct {
	// Index is the index name (default "default").
	Index string
	// ConfigFile is the YAML config of the index.
	ConfigFile string
	// IndexDir holds the database, the vector export and the write lock.
	IndexDir string
	// DBFile is the SQLite database.
	DBFile string
	// ModelsDir is the shared model cache.
	ModelsDir string
}

var indexNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// Resolve computes the paths of index name, honouring GNO_HOME,
// GNO_MODELS_DIR and the XDG variables. configFile, when not empty, overrides the config location.
func Resolve(index, configFile string) (Paths, error) {
	if index == "" {
		index = "default"
	}
	if !indexNameRE.MatchString(index) {
		return Paths{}, fmt.Errorf("invalid index name %q: use lowercase letters, digits, '.', '_' or '-'", index)
	}
	var cfgDir, dataDir, cacheDir string
	modelsDir := ""
	if home := os.Getenv("GNO_HOME"); home != "" {
		cfgDir = filepath.Join(home, "config")
		dataDir = filepath.Join(home, "data")
		modelsDir = filepath.Join(home, "models")
	} else {
		userHome, err := os.UserHomeDir()
		if err != nil {
			return Paths{}, fmt.Errorf("find home directory: %w", err)
		}
		cfgDir = filepath.Join(xdg("XDG_CONFIG_HOME", filepath.Join(userHome, ".config")), "gno")
		dataDir = filepath.Join(xdg("XDG_DATA_HOME", filepath.Join(userHome, ".local", "share")), "gno")
		cacheDir = filepath.Join(xdg("XDG_CACHE_HOME", filepath.Join(userHome, ".cache")), "gno")
	}
	p := Paths{
		Index:      index,
		ConfigFile: filepath.Join(cfgDir, index+".yml"),
		IndexDir:   filepath.Join(dataDir, index),
		ModelsDir:  modelsDir,
	}
	if p.ModelsDir == "" {
		p.ModelsDir = filepath.Join(cacheDir, "models")
	}
	if d := os.Getenv("GNO_MODELS_DIR"); d != "" && filepath.IsAbs(d) {
		p.ModelsDir = d
	}
	if configFile != "" {
		abs, err := filepath.Abs(configFile)
		if err != nil {
			return Paths{}, fmt.Errorf("config path %s: %w", configFile, err)
		}
		p.ConfigFile = abs
	}
	p.DBFile = filepath.Join(p.IndexDir, "index.sqlite")
	return p, nil
}

func xdg(env, def string) string {
	if v := os.Getenv(env); v != "" && filepath.IsAbs(v) {
		return v
	}
	return def
}

// Packages are the paths of the package-docs index that belongs to this
// index: its own folder (database, writer lock, vector graph) inside the
// index folder, so a search of the notes never returns a dependency's API
// and `gno packages add` never waits for a notes sync. The config (and so
// the models) is the index's own.
func (p Paths) Packages() Paths {
	p.IndexDir = filepath.Join(p.IndexDir, "packages")
	p.DBFile = filepath.Join(p.IndexDir, "index.sqlite")
	return p
}
