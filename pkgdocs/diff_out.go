package pkgdocs

import (
	"context"
	"fmt"
	"strings"

	"github.com/gnosearch/gno/pkgdocs/apidoc"
	"github.com/gnosearch/gno/pkgdocs/packages"
)

// The changelog, the budget and the text of a diff (diff.go computes
// the API changes).

// changelog adds the changelog entries of the range, read from the newer
// version's files (its changelog holds the older entries too), else the
// older's. Reading is best effort: a version whose files are gone or
// unreadable is a note.
func (x *Index) changelog(ctx context.Context, s *scoped, from, to side, res *PackageChanges) {
	lo, hi := from, to
	if apidoc.CompareVersions(lo.Version, hi.Version) > 0 {
		lo, hi = hi, lo
	}
	for _, sd := range []side{hi, lo} {
		p := sd.pkg
		if p == nil {
			p = x.locate(ctx, s, sd)
		}
		if p == nil {
			continue
		}
		c, err := apidoc.ReadChangelog(apiPackage(*p))
		if err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("%s %s: %v", p.Name, p.Version, err))
			continue
		}
		if c == nil {
			continue
		}
		part := &ChangelogPart{File: c.File, Version: sd.Version, Known: c.Known, Entries: c.EntriesBetween(lo.Version, hi.Version)}
		if part.Entries == nil {
			part.Entries = []apidoc.ChangelogEntry{}
		}
		res.Changelog = part
		switch {
		case !c.Known:
			res.Notes = append(res.Notes, fmt.Sprintf("changelog %s of %s %s: format not recognised (no version headings), no entries taken", c.File, p.Name, sd.Version))
		case len(part.Entries) == 0:
			res.Notes = append(res.Notes, fmt.Sprintf("changelog %s of %s %s has no entry between %s and %s", c.File, p.Name, sd.Version, lo.Version, hi.Version))
		}
		return
	}
}

// locate finds a stored version's files again: in the package caches
// (the module cache, CARGO_HOME, gno's fetch cache), else among the
// project's installed dependencies. nil when they are gone.
func (x *Index) locate(ctx context.Context, s *scoped, v side) *packages.Package {
	eco := packages.Ecosystem(v.Ecosystem)
	opt := packages.Options{CacheDir: x.opt.CacheDir, Env: x.opt.Env}
	if p, err := packages.FetchVersion(ctx, diffProject(s), opt, eco, v.Name, v.Version); err == nil {
		return p
	}
	if v.ProjectID == 0 {
		return nil
	}
	opt.All, opt.Ecosystems = true, []packages.Ecosystem{eco}
	proj, err := packages.Discover(ctx, diffProject(s), opt)
	if err != nil {
		return nil
	}
	for i, p := range proj.Packages {
		if p.Name == v.Name && p.Version == v.Version && p.Dir != "" {
			return &proj.Packages[i]
		}
	}
	return nil
}

// fit cuts the answer to maxTokens: the changelog's entries first (the
// oldest), then added, newly deprecated, changed and removed items, each
// list from its end; Cut says what went.
func (r *PackageChanges) fit(maxTokens int) {
	fits := func() bool { return tokensOf(r) <= maxTokens }
	if fits() {
		return
	}
	r.Truncated = true
	// Room for the Cut lines themselves.
	maxTokens = max(maxTokens-60, 0)
	if c := r.Changelog; c != nil && len(c.Entries) > 0 {
		all := c.Entries
		n := len(all)
		k := keepFitting(n, func(k int) bool { c.Entries = all[:k]; return tokensOf(r) <= maxTokens })
		if k == 0 && n > 0 {
			// One long entry: keep its beginning rather than nothing.
			e := []apidoc.ChangelogEntry{all[0]}
			c.Entries = e
			over := tokensOf(r) - maxTokens
			e[0].Text = cutTokens(e[0].Text, max(tokensOf(e[0].Text)-over-8, 0))
			if tokensOf(r) > maxTokens {
				c.Entries = c.Entries[:0]
			} else {
				k = 1
			}
		} else {
			c.Entries = all[:k]
		}
		if k < n {
			r.Cut = append(r.Cut, fmt.Sprintf("changelog: %d of %d entries shown", k, n))
		}
	}
	for _, l := range []struct {
		name string
		list *[]APIChange
	}{{"added", &r.Added}, {"deprecated", &r.Deprecated}, {"changed", &r.Changed}, {"removed", &r.Removed}} {
		if tokensOf(r) <= maxTokens {
			break
		}
		all := *l.list
		if len(all) == 0 {
			continue
		}
		k := keepFitting(len(all), func(k int) bool { *l.list = all[:k]; return tokensOf(r) <= maxTokens })
		*l.list = all[:k]
		r.Cut = append(r.Cut, fmt.Sprintf("%s: %d of %d items shown", l.name, k, len(all)))
	}
	if r.Changelog != nil && tokensOf(r) > maxTokens {
		r.Changelog = nil
		r.Cut = append(r.Cut, "changelog left out")
	}
	r.Notes = append(r.Notes, "truncated to the token budget: raise maxTokens (--max-tokens) for the rest, or narrow with --from/--to")
	// Last, the other notes (the truncation note stays).
	for len(r.Notes) > 1 && tokensOf(r) > maxTokens+60 {
		r.Notes = r.Notes[1:]
	}
}

// Text is the human form of a diff.
func (r *PackageChanges) Text() string {
	var b strings.Builder
	mark := func(v DiffVersion) string {
		switch {
		case v.Installed:
			return " (installed)"
		case v.Fetched:
			return " (fetched)"
		}
		return ""
	}
	fmt.Fprintf(&b, "%s %s: %s%s → %s%s\n", r.Ecosystem, r.Name, r.From.Version, mark(r.From), r.To.Version, mark(r.To))
	fmt.Fprintf(&b, "%d removed, %d changed, %d newly deprecated, %d added\n", r.Counts.Removed, r.Counts.Changed, r.Counts.Deprecated, r.Counts.Added)
	list := func(title, sign string, l []APIChange, total int) {
		if total == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s (%d):\n", title, total)
		for _, c := range l {
			line := c.Name + " (" + c.Kind + ")"
			if c.Signature != "" && len(c.Delta) == 0 {
				// Overloads are one item, their signatures one per line.
				line += ": " + oneLine(strings.ReplaceAll(c.Signature, "\n", " ; "), 160)
			}
			fmt.Fprintf(&b, "  %s %s\n", sign, line)
			switch {
			case len(c.Delta) > 0:
				for _, d := range c.Delta {
					fmt.Fprintf(&b, "      %s\n", oneLine(d, 160))
				}
			case c.Before != "":
				fmt.Fprintf(&b, "      was: %s\n", oneLine(c.Before, 160))
			}
		}
		if len(l) < total {
			fmt.Fprintf(&b, "  … %d more\n", total-len(l))
		}
	}
	list("Removed", "-", r.Removed, r.Counts.Removed)
	list("Changed", "~", r.Changed, r.Counts.Changed)
	list("Newly deprecated", "!", r.Deprecated, r.Counts.Deprecated)
	list("Added", "+", r.Added, r.Counts.Added)
	if c := r.Changelog; c != nil && c.Known {
		fmt.Fprintf(&b, "\nChangelog (%s of %s, %d entries):\n", c.File, c.Version, r.Counts.Changelog)
		for _, e := range c.Entries {
			fmt.Fprintf(&b, "\n## %s\n%s\n", e.Title, strings.TrimSpace(e.Text))
		}
	}
	for _, c := range r.Cut {
		fmt.Fprintf(&b, "\n[cut] %s", c)
	}
	if len(r.Cut) > 0 {
		b.WriteString("\n")
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\nnote: %s", n)
	}
	return strings.TrimRight(b.String(), "\n")
}
