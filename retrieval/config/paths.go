package config

import (
	"errors"
	"fmt"

	"github.com/gnosearch/gno/retrieval/config/dirs"
)

// Paths are the directories one index lives in (see package dirs, which
// owns the rule).
type Paths = dirs.Paths

// Resolve computes the paths of index name, honouring GNO_HOME,
// GNO_MODELS_DIR and the XDG variables. configFile, when not empty,
// overrides the config location.
func Resolve(index, configFile string) (Paths, error) {
	p, err := dirs.Resolve(index, configFile)
	if errors.Is(err, dirs.ErrName) {
		return p, fmt.Errorf("invalid index name %q: use lowercase letters, digits, '.', '_' or '-'", index)
	}
	return p, err
}
