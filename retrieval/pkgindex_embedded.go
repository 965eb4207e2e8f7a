package retrieval

import (
	"context"
	"sync"
)

// embeddedVersions caches, per version key, whether a stored version's
// units have vectors of the embedding model (VersionsEmbedded), under
// the key of the store state it was read in: the writes counter (a
// version added, replaced or removed bumps it) and the vectors' version
// (an embedding run bumps it). A search then decides its vector split
// (PackageSearch.Sides) from the version itself, with two meta reads,
// not from what its keywords happened to find.
type embeddedVersions struct {
	mu    sync.Mutex
	at    string
	known map[string]bool
}

// embeddedSampled is how many of a version's first units are asked for
// vectors: an embedded version has them for all its units (a unit of
// an empty text may have no chunk), one not embedded for none.
const embeddedSampled = 3

// VersionsEmbedded reports, for each of keys that is stored, whether its
// units have vectors of the index's embedding model (a standard library
// embedded with `gno packages add --embed-stdlib`). The answer is cached
// until the index or its vectors change.
func (p *Packages) VersionsEmbedded(ctx context.Context, keys []string) (map[string]bool, error) {
	out := map[string]bool{}
	model := p.e.models.EmbedModel()
	if len(keys) == 0 || model == "" {
		return out, nil
	}
	st, err := p.e.store(ctx)
	if err != nil {
		return nil, err
	}
	writes, err := st.LinkVersion(ctx)
	if err != nil {
		return nil, err
	}
	vv, err := st.Meta(ctx, "vectors_version")
	if err != nil {
		return nil, err
	}
	at := writes + "/" + vv + "/" + model
	c := &p.embedded
	c.mu.Lock()
	if c.at != at || writes == "" {
		c.at, c.known = at, map[string]bool{}
	}
	var missing []string
	for _, k := range keys {
		if e, ok := c.known[k]; ok {
			out[k] = e
		} else {
			missing = append(missing, k)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	vs, err := st.PkgVersions(ctx, missing)
	if err != nil {
		return nil, err
	}
	read := map[string]bool{}
	for _, k := range missing {
		v := vs[k]
		if v == nil {
			continue
		}
		us, err := st.PkgUnitsWhere(ctx, UnitQuery{VersionID: v.ID, Limit: embeddedSampled})
		if err != nil {
			return nil, err
		}
		emb := false
		for _, u := range us {
			dv, err := st.DocVectors(ctx, u.DocID)
			if err != nil {
				return nil, err
			}
			for _, x := range dv {
				emb = emb || x.Model == model
			}
			if emb {
				break
			}
		}
		read[k], out[k] = emb, emb
	}
	c.mu.Lock()
	if c.at == at {
		for k, e := range read {
			c.known[k] = e
		}
	}
	c.mu.Unlock()
	return out, nil
}
