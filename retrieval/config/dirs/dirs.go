// Package dirs is the one rule for where an index lives: its config
// file, its data directory and the model cache, from the index name,
// --config, GNO_HOME, GNO_MODELS_DIR and the XDG variables.
//
// It imports only the standard library and does nothing at init, so the
// CLI's fast path (cmd/gno/internal/fastpath) can find a running daemon
// for the index before gno's heavy packages initialise. config.Resolve is
// this package's Resolve; nothing else may compute these paths.
//
// Its imports are only those package os needs itself: Go initialises a
// package after all its imports, choosing among ready packages in
// import-path order, so importing strings, strconv or path/filepath (all
// initialised late, their paths sorting late) would put dozens of other
// packages' init before the fast path's. So on Unix it joins paths with
// package path (the same result for '/'-separated paths, tested).
package dirs

import (
	"errors"
	"os"
)

// ErrName is Resolve's error for an index name that breaks the rule
// (IsName); config.Resolve words it for people.
var ErrName = errors.New("invalid index name")

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
		return Paths{}, ErrName
	}
	var cfgDir, dataDir, cacheDir string
	modelsDir := ""
	if home := os.Getenv("GNO_HOME"); home != "" {
		cfgDir = join(home, "config")
		dataDir = join(home, "data")
		modelsDir = join(home, "models")
	} else {
		userHome, err := os.UserHomeDir()
		if err != nil {
			return Paths{}, errors.New("find home directory: " + err.Error())
		}
		cfgDir = join(xdg("XDG_CONFIG_HOME", join(userHome, ".config")), "gno")
		dataDir = join(xdg("XDG_DATA_HOME", join(userHome, ".local", "share")), "gno")
		cacheDir = join(xdg("XDG_CACHE_HOME", join(userHome, ".cache")), "gno")
	}
	p := Paths{
		Index:      index,
		ConfigFile: join(cfgDir, index+".yml"),
		IndexDir:   join(dataDir, index),
		ModelsDir:  modelsDir,
	}
	if p.ModelsDir == "" {
		p.ModelsDir = join(cacheDir, "models")
	}
	if d := os.Getenv("GNO_MODELS_DIR"); d != "" && isAbs(d) {
		p.ModelsDir = d
	}
	if configFile != "" {
		abs, err := abs(configFile)
		if err != nil {
			return Paths{}, errors.New("config path " + configFile + ": " + err.Error())
		}
		p.ConfigFile = abs
	}
	p.DBFile = join(p.IndexDir, "index.sqlite")
	return p, nil
}

// Packages are the paths of the package-docs index that belongs to this
// index: its own folder (database, writer lock, vector graph) inside the
// index folder, so a search of the notes never returns a dependency's API
// and `gno packages add` never waits for a notes sync. The config (and so
// the models) is the index's own.
func (p Paths) Packages() Paths {
	p.IndexDir = join(p.IndexDir, "packages")
	p.DBFile = join(p.IndexDir, "index.sqlite")
	return p
}

func xdg(env, def string) string {
	if v := os.Getenv(env); v != "" && isAbs(v) {
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
