package config

import (
	"fmt"
	"os"
	"path/filepath"
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

// Resolve computes the paths of index name, honouring GNO_HOME,
// GNO_MODELS_DIR and the XDG variables. configFile, when not empty, overrides the config location.
func Resolve(index, configFile string) (Paths, error) {
	if index == "" {
		index = "default"
	}
	if !isName(index) {
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
