package apidoc

import (
	"slices"
	"strings"
)

// Which README section documents which undocumented API item
// (readmeDocs): the pairing rules, apart from the README's parsing.

// sectionMatch pairs a unit (its index) with the section documenting it.
type sectionMatch struct{ unit, section int }

// matchRules are what matchSections asks of a name: whether a call to it
// can tell its item apart (callable), whether a plain-word heading may
// name it (word: one API item has it, and it is not a section word like
// "Options"), whether more than one API item has it (shared), and
// whether a heading's qualifier names a unit's owner or module (owns).
type matchRules struct {
	callable, word, shared func(name string) bool
	owns                   func(unit int, qual string) bool
}

// ownedBy reports whether qual, a heading's qualifier ("requests" of
// "requests.get(url)", "chalk" of "chalk.level"), names s's owner or
// its module: the name before s's last part ("Session" of
// "requests.sessions.Session.get", "ZodString" holding "string"), or,
// for an item that is no member (a function, a constant), a module of
// its name or the package. Case is ignored.
func ownedBy(s *Symbol, pkg, qual string) bool {
	qual = strings.ToLower(qual)
	parts := strings.FieldsFunc(strings.ToLower(s.Name), func(r rune) bool { return r == '.' || r == ':' || r == '/' })
	if len(parts) >= 2 && strings.Contains(parts[len(parts)-2], qual) {
		return true
	}
	switch s.Kind {
	case SymMethod, SymProperty, SymConstructor:
		return false
	}
	if len(parts) > 0 && slices.Contains(parts[:len(parts)-1], qual) {
		return true
	}
	pkg = strings.ToLower(pkg)
	return pkg == qual || strings.HasSuffix(pkg, "/"+qual)
}

// matchSections pairs undocumented items (by last name, unit indexes in
// order) with sections: heading names first, then code calls of the
// names rules.callable says a call can tell apart (a name that one API
// item has: "get" in `requests.get(url)` is not LookupDict.get's), each
// section at most maxSectionItems times, each unit once. A heading's
// qualifier must name the owner or module of an item whose name other
// items share ("### `requests.get(url)`" is not LookupDict.get's), and a
// plain-word heading names only what rules.word allows ("## Options" is
// not an item's). Deterministic: sections, names and units are taken in
// order.
func matchSections(secs []readmeSection, byName map[string][]int, rules matchRules) []sectionMatch {
	used := make([]int, len(secs))
	done := map[int]bool{}
	var out []sectionMatch
	pass := func(names func(readmeSection) []headingName) {
		for si, s := range secs {
			for _, n := range names(s) {
				if n.Word && !rules.word(n.Name) {
					continue
				}
				for _, ui := range byName[n.Name] {
					if used[si] >= maxSectionItems {
						break
					}
					if done[ui] || (n.Qual != "" && rules.shared(n.Name) && !rules.owns(ui, n.Qual)) {
						continue
					}
					done[ui] = true
					used[si]++
					out = append(out, sectionMatch{ui, si})
				}
			}
		}
	}
	pass(func(s readmeSection) []headingName { return s.Named })
	pass(func(s readmeSection) []headingName {
		var out []headingName
		for _, c := range s.Calls {
			if rules.callable(c) {
				out = append(out, headingName{Name: c})
			}
		}
		return out
	})
	return out
}

// sectionWords are headings that name a README's parts, not an item,
// when written as a plain word ("## Options", "## Usage"), compared in
// lower case.
var sectionWords = map[string]bool{"usage": true, "options": true, "option": true, "config": true,
	"configuration": true, "installation": true, "install": true, "setup": true, "api": true,
	"example": true, "examples": true, "license": true, "contributing": true, "features": true,
	"overview": true, "introduction": true, "intro": true, "documentation": true, "docs": true,
	"changelog": true, "changes": true, "faq": true, "requirements": true, "credits": true,
	"authors": true, "support": true, "related": true, "motivation": true, "background": true,
	"methods": true, "properties": true, "parameters": true, "arguments": true, "returns": true,
	"errors": true, "events": true, "types": true, "development": true, "testing": true,
	"tests": true, "benchmarks": true, "performance": true, "migration": true, "upgrading": true,
	"compatibility": true, "security": true, "limitations": true, "caveats": true, "notes": true,
	"tips": true, "acknowledgements": true, "alternatives": true, "roadmap": true, "summary": true,
	"description": true, "quickstart": true, "tutorial": true, "guide": true, "help": true,
	"commands": true, "install_requires": true, "getting_started": true, "index": true, "contents": true}
