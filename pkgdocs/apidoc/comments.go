package apidoc

import (
	"strings"
)

// Doc comment text, signatures' length, and examples taken from docs,
// for the C-like languages.

// cutSig bounds a signature (a type alias over a huge union).
func cutSig(s string) string {
	if len(s) > maxSignature {
		return cutText(s, maxSignature)
	}
	return s
}

// jsdoc strips a /** */ comment to its text: the leading " * " of each
// line removed, tags (@param, @returns, @example) kept as written.
func jsdoc(c string) string {
	c = strings.TrimPrefix(c, "/**")
	c = strings.TrimSuffix(c, "*/")
	lines := strings.Split(c, "\n")
	for i, l := range lines {
		t := strings.TrimLeft(l, " \t")
		if strings.HasPrefix(t, "*") {
			t = strings.TrimPrefix(t[1:], " ")
			lines[i] = t
		} else {
			lines[i] = strings.TrimSpace(l)
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// rustVisible hides what rustdoc hides: "# " lines in code blocks.
func rustVisible(doc string) string {
	if !strings.Contains(doc, "```") {
		return doc
	}
	var out []string
	in := false
	for _, l := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			in = !in
		} else if in && (t == "#" || strings.HasPrefix(t, "# ")) {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// rustDocText strips a doc comment's markers: "/// " or "//! " a line,
// or a /** */ block's frame.
func rustDocText(c string) string {
	switch {
	case strings.HasPrefix(c, "///") || strings.HasPrefix(c, "//!"):
		return strings.TrimRight(strings.TrimPrefix(c[3:], " "), "\r")
	case strings.HasPrefix(c, "/**") || strings.HasPrefix(c, "/*!"):
		return jsdoc("/**" + c[3:])
	}
	return c
}

// docExamples adds the code blocks of a doc comment's "# Examples"
// section (Rust) or, for Swift, every code block, as an example unit.
func docExamples(x *extractor, lang, name, doc, file string, line int) {
	if !strings.Contains(doc, "```") {
		return
	}
	var blocks []string
	inSection := lang != "rust"
	level := 0
	var cur []string
	fenceOpen := ""
	skipBlock := false
	for _, l := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(l)
		if fenceOpen != "" {
			if strings.HasPrefix(t, fenceOpen) && strings.Trim(t, "`~") == "" {
				if inSection && !skipBlock {
					blocks = append(blocks, strings.Join(cur, "\n"))
				}
				fenceOpen, cur, skipBlock = "", nil, false
				continue
			}
			if lang == "rust" && (t == "#" || strings.HasPrefix(t, "# ")) {
				continue // a line rustdoc hides
			}
			cur = append(cur, l)
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			info := strings.TrimLeft(t, "`~")
			// rustdoc's code is a block with no info or a Rust one;
			// text, console and the like are not examples
			skipBlock = lang == "rust" && info != "" && !strings.Contains(info, "rust") && !strings.Contains(info, "no_run") &&
				!strings.Contains(info, "should_panic") && !strings.Contains(info, "ignore") && !strings.Contains(info, "edition") && !strings.Contains(info, "compile_fail")
			fenceOpen = t[:len(t)-len(info)]
			continue
		}
		if strings.HasPrefix(t, "#") {
			h := strings.TrimLeft(t, "#")
			lv := len(t) - len(h)
			if lang == "rust" {
				if strings.HasPrefix(strings.ToLower(strings.TrimSpace(h)), "example") {
					inSection, level = true, lv
				} else if inSection && lv <= level {
					inSection = false
				}
			}
		}
	}
	if len(blocks) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString("# Example: " + name + "\n\n")
	for _, bl := range blocks {
		b.WriteString(fence(lang, dedent(bl)))
	}
	x.add(Unit{Kind: KindExample, Path: "example/" + name, Title: "Example: " + name, Text: b.String(), File: file, Line: line})
}

// jsdocExamples returns the bodies of a JSDoc comment's @example tags,
// each up to the next tag, fenced as TypeScript unless already fenced.
func jsdocExamples(doc string) []string {
	var out []string
	var cur []string
	in := false
	flush := func() {
		if in {
			if s := strings.Trim(strings.Join(cur, "\n"), "\n"); strings.TrimSpace(s) != "" {
				if !strings.Contains(s, "```") {
					s = strings.TrimRight(fence("ts", dedent(s)), "\n")
				}
				out = append(out, s)
			}
		}
		cur, in = nil, false
	}
	fenced := false
	for _, l := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			fenced = !fenced
		}
		if !fenced && strings.HasPrefix(t, "@") {
			flush()
			if strings.HasPrefix(t, "@example") {
				in = true
				if rest := strings.TrimSpace(strings.TrimPrefix(t, "@example")); rest != "" {
					cur = append(cur, rest)
				}
			}
			continue
		}
		if in {
			cur = append(cur, l)
		}
	}
	flush()
	return out
}
