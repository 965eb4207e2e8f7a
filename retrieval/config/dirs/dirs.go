// Package dirs is the one rule for where an index lives: its config
// file, its data directory and the model cache, from the index name,
// --config, GNO_HOME, GNO_MODELS_DIR and the XDG variables.
//
// It imports only the standard library and does nothing at init, so the
// CLI's fast path (cmd/gno/internal/fastpath) can find a running daemon
// for the index before gno's heavy packages initialise. config.Resolve is
// this package's Resolve; nothing else may compute these paths.
package dirs

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
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
// GNO_MODELS_DIR and the XDG variables. configFile, when not empty,
// overrides the config location (relative to the working directory).
func Resolve(index, configFile string) (Paths, error) {
	if index == "" {
		index = "default"
	}
	if !IsName(index) {
		return Paths{}, errors.New("invalid index name " + strconv.Quote(index) + ": use lowercase letters, digits, '.', '_' or '-'")
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
			return Paths{}, errors.New("find home directory: " + err.Error())
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
			return Paths{}, errors.New("config path " + configFile + ": " + err.Error())
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

// IsName reports whether s matches ^[a-z0-9][a-z0-9._-]{0,63}$, the rule
// for index (and collection) names. Written out rather than as a regexp:
// compiling the {0,63} repetition costs every gno command about 0.2 ms
// and 700 allocations at start.
func IsName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}
