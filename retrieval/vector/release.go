package vector

// ReleasePages drops the saved graph's pages from the process's resident
// memory: a daemon that ran a few searches maps most of the file (the
// kernel maps the pages around each one read that the page cache holds),
// ~0.5 GB at a million vectors, counted in its RSS although the kernel
// could drop them. They stay in the page cache; the next search maps
// again what it reads. Safe beside a search (the bytes do not change).
func (g *Graph) ReleasePages() {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.file != nil && g.file.mapped {
		releasePages(g.file.all)
	}
}

// mappedIf marks an opened graph's file as mapped when it is one, so
// ReleasePages may drop its pages (never a file read into memory).
func mappedIf(mapped bool) func(*Graph, error) (*Graph, error) {
	return func(g *Graph, err error) (*Graph, error) {
		if err == nil && mapped {
			g.file.mapped = true
		}
		return g, err
	}
}
