package retrieval

import "github.com/gnosearch/gno/retrieval/config"

// UpdateConfigLocked is UpdateConfig for a caller that already holds the
// writer lock: the MCP server's write tools take the lock without waiting
// (a held lock must give LOCKED at once) and keep it for the whole write.
func (e *Engine) UpdateConfigLocked(fn func(*config.Config) error) error {
	return e.updateConfigLocked(fn)
}
