package retrieval

import "context"

// UnitTexts returns the Markdown of a version's units of kind whose text
// contains word (case-insensitive), by document id: `gno packages diff`
// reads only the API items whose docs mention deprecation.
func (p *Packages) UnitTexts(ctx context.Context, versionID int64, kind, word string) (map[int64]string, error) {
	st, err := p.e.store(ctx)
	if err != nil {
		return nil, err
	}
	return st.PkgUnitTexts(ctx, versionID, kind, word)
}
