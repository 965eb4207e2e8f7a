package ingest

// FrontMatterSafe reports whether a YAML front matter block is small and
// shallow enough to hand to yaml.v3: the limits SplitFrontMatter applies
// before it parses one. An editor that shows front matter as properties
// (note.Props) asks the same question.
func FrontMatterSafe(block string) bool {
	return len(block) <= MaxFrontMatter && flowDepth(block) <= maxFlowDepth
}
