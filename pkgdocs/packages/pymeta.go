package packages

import (
	"bytes"
	"encoding/csv"
	"io"
	"strings"
	"unicode/utf8"
)

// pyMetadata is a parsed METADATA (or PKG-INFO) file: the core metadata
// of a Python distribution.
type pyMetadata struct {
	headers map[string][]string // lower-case field name → values in order
	body    string
}

// parseMetadata reads core metadata. The format is RFC 822 "as parsed by
// Python's email package" (compat32): fields with continuation lines, a
// blank line, then the long description. It is written by hand because
// pip's parser is lenient where net/textproto and net/mail are strict: a
// line that is no field ends the fields and starts the body instead of
// failing, and the old Description field's "        |" continuation
// prefix is undone. Invalid UTF-8 is replaced, never an error.
func parseMetadata(data []byte) pyMetadata {
	if !utf8.Valid(data) {
		data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
	}
	m := pyMetadata{headers: map[string][]string{}}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	text = strings.TrimPrefix(text, "\uFEFF")
	var key string
	var val []string
	flush := func() {
		if key != "" {
			m.headers[key] = append(m.headers[key], strings.Join(val, "\n"))
		}
		key, val = "", nil
	}
	rest := text
	for rest != "" {
		line, after, _ := strings.Cut(rest, "\n")
		switch {
		case line == "":
			flush()
			m.body = after
			rest = ""
			continue
		case line[0] == ' ' || line[0] == '\t':
			if key == "" {
				m.body = rest // no field to continue: the body starts here
				rest = ""
				continue
			}
			l := strings.TrimLeft(line, " \t")
			if key == "description" {
				if x, ok := strings.CutPrefix(line, "       |"); ok {
					l = x
				} else if x, ok := strings.CutPrefix(line, "        "); ok {
					l = x
				}
			}
			val = append(val, l)
		default:
			k, v, ok := strings.Cut(line, ":")
			if !ok || k == "" || strings.ContainsAny(k, " \t") {
				flush()
				m.body = rest // compat32 treats the rest as body
				rest = ""
				continue
			}
			flush()
			key, val = strings.ToLower(k), []string{strings.TrimSpace(v)}
		}
		rest = after
	}
	flush()
	return m
}

// get is a field's first value, trimmed; "UNKNOWN" (distutils' filler)
// counts as absent.
func (m pyMetadata) get(k string) string {
	vs := m.headers[k]
	if len(vs) == 0 {
		return ""
	}
	v := strings.TrimSpace(vs[0])
	if v == "UNKNOWN" {
		return ""
	}
	return v
}

// description is the long description: the body, or the Description
// field of metadata before 2.1.
func (m pyMetadata) description() string {
	if b := strings.TrimSpace(m.body); b != "" {
		return m.body
	}
	return m.get("description")
}

// summaryLine is Summary on one line.
func (m pyMetadata) summaryLine() string {
	return strings.Join(strings.Fields(m.get("summary")), " ")
}

// license is License-Expression (metadata 2.4), else a one-line License
// field (some put the whole licence text there), else the licence
// classifier's last part.
func (m pyMetadata) license() string {
	if v := m.get("license-expression"); v != "" {
		return v
	}
	if v := m.get("license"); v != "" && !strings.Contains(v, "\n") && len(v) <= 100 {
		return v
	}
	for _, c := range m.headers["classifier"] {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(c), "License :: "); ok {
			parts := strings.Split(rest, " :: ")
			return strings.TrimSpace(parts[len(parts)-1])
		}
	}
	return ""
}

// projectURLs reads the Project-URL fields ("Label, URL") keyed by the
// label normalised as PEP 753 says (lower case, no punctuation or space).
func (m pyMetadata) projectURLs() map[string]string {
	out := map[string]string{}
	for _, v := range m.headers["project-url"] {
		label, url, ok := strings.Cut(v, ",")
		if !ok {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(label) {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				b.WriteRune(r)
			}
		}
		if k := b.String(); k != "" && out[k] == "" {
			out[k] = strings.TrimSpace(url)
		}
	}
	return out
}

// homeAndRepo picks the homepage and source repository URLs.
func (m pyMetadata) homeAndRepo() (home, repo string) {
	urls := m.projectURLs()
	home = m.get("home-page")
	for _, k := range []string{"homepage", "home", "documentation", "docs"} {
		if home == "" {
			home = urls[k]
		}
	}
	for _, k := range []string{"source", "sourcecode", "repository", "code", "github", "gitlab"} {
		if repo == "" {
			repo = urls[k]
		}
	}
	if repo == "" && (strings.Contains(home, "github.com/") || strings.Contains(home, "gitlab.com/")) {
		repo = home
	}
	return home, repoURL(repo)
}

// normalizePyName is PEP 503's normalised project name: lower case, runs
// of "-", "_" and "." as one "-".
func normalizePyName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		if r == '-' || r == '_' || r == '.' {
			if !dash {
				b.WriteByte('-')
			}
			dash = true
			continue
		}
		dash = false
		b.WriteRune(r)
	}
	return b.String()
}

// pyRequirement is a PEP 508 dependency specifier, split.
type pyRequirement struct {
	name   string
	extras []string
	spec   string // version specifier, e.g. ">=2,<3" or "==1.2.3"
	url    string // "name @ url"
	marker string
	// optional is set for an extra's dependency ([project.optional-
	// dependencies], Poetry's optional = true): listed only when
	// installed, never fetched.
	optional bool
}

// pinned is the exact version a "==" (or "===") specifier names.
func (r pyRequirement) pinned() string {
	s := strings.TrimSpace(r.spec)
	for _, op := range []string{"===", "=="} {
		if v, ok := strings.CutPrefix(s, op); ok {
			v = strings.TrimSpace(v)
			if v != "" && !strings.ContainsAny(v, "*,; ") {
				return v
			}
			return ""
		}
	}
	return ""
}

// parseRequirement splits a PEP 508 string. Only what discovery needs is
// checked: a valid name; the rest is kept as written. It is hand-written
// because no maintained Go library parses PEP 508.
func parseRequirement(s string) (pyRequirement, bool) {
	var r pyRequirement
	s = strings.TrimSpace(s)
	if s, r.marker, _ = strings.Cut(s, ";"); true {
		r.marker = strings.TrimSpace(r.marker)
	}
	i := 0
	for i < len(s) && (isAlnum(s[i]) || (i > 0 && (s[i] == '-' || s[i] == '_' || s[i] == '.'))) {
		i++
	}
	for i > 0 && !isAlnum(s[i-1]) {
		i--
	}
	if i == 0 {
		return r, false
	}
	r.name = s[:i]
	rest := strings.TrimSpace(s[i:])
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return r, false
		}
		for _, e := range strings.Split(rest[1:end], ",") {
			if e = strings.TrimSpace(e); e != "" {
				r.extras = append(r.extras, e)
			}
		}
		rest = strings.TrimSpace(rest[end+1:])
	}
	if u, ok := strings.CutPrefix(rest, "@"); ok {
		r.url = strings.TrimSpace(u)
		return r, r.url != ""
	}
	rest = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(rest, "("), ")"))
	if rest != "" && !strings.ContainsAny(rest[:1], "<>=!~") {
		return r, false
	}
	r.spec = rest
	return r, true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// markerExtras lists the extras a marker requires ("extra == 'socks'"):
// such a dependency applies only when its parent was asked with them.
func markerExtras(marker string) []string {
	var out []string
	for rest := marker; ; {
		i := strings.Index(rest, "extra")
		if i < 0 {
			return out
		}
		rest = strings.TrimLeft(rest[i+len("extra"):], " ")
		if !strings.HasPrefix(rest, "==") {
			continue
		}
		rest = strings.TrimLeft(rest[2:], " ")
		if rest == "" || (rest[0] != '"' && rest[0] != '\'') {
			continue
		}
		q := rest[0]
		end := strings.IndexByte(rest[1:], q)
		if end < 0 {
			return out
		}
		out = append(out, normalizePyName(rest[1:end+1]))
		rest = rest[end+2:]
	}
}

// requirementsLine is one logical line of a requirements file: a
// requirement, or an -r/--requirement include.
type requirementsLine struct {
	req     pyRequirement
	include string
}

// parseRequirementsFile reads pip's requirements format: comments,
// backslash continuations, options (of which only -r is followed),
// editable and URL lines (the project's own or VCS code, skipped).
func parseRequirementsFile(data []byte) []requirementsLine {
	var out []requirementsLine
	text := strings.ReplaceAll(string(bytes.ToValidUTF8(data, nil)), "\r\n", "\n")
	text = strings.ReplaceAll(text, "\\\n", "")
	for _, line := range strings.Split(text, "\n") {
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		if i := strings.Index(line, "\t#"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if line[0] == '-' {
			for _, opt := range []string{"-r", "--requirement"} {
				if rest, ok := strings.CutPrefix(line, opt); ok && (rest == "" || rest[0] == ' ' || rest[0] == '=' || rest[0] == '\t') {
					if f := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), "=")); f != "" {
						out = append(out, requirementsLine{include: f})
					}
				}
			}
			continue
		}
		if strings.Contains(line, "://") && !strings.Contains(line, "@") || strings.HasPrefix(line, ".") || strings.HasPrefix(line, "/") {
			continue
		}
		if r, ok := parseRequirement(line); ok {
			out = append(out, requirementsLine{req: r})
		}
	}
	return out
}

// parseRecord reads a dist's RECORD (CSV: path, hash, size) and returns
// the paths. Python's csv module writes it; encoding/csv reads it with
// lazy quotes for the odd hand-made one.
func parseRecord(data []byte) []string {
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	cr.ReuseRecord = true
	var out []string
	for range 1_000_000 {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			if _, ok := err.(*csv.ParseError); ok {
				continue
			}
			break
		}
		if len(rec) > 0 && strings.TrimSpace(rec[0]) != "" {
			out = append(out, rec[0])
		}
	}
	return out
}
