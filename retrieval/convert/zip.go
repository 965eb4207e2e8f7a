package convert

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"path"
	"strings"
)

// archive is a zip file read under Limits: entries are decompressed only
// up to MaxEntryBytes each and MaxTotalBytes together, so a zip bomb costs
// bounded memory and time whatever its headers claim.
type archive struct {
	ctx   context.Context
	lim   Limits
	files map[string]*zip.File
	total int64
}

func openArchive(ctx context.Context, data []byte, lim Limits) (*archive, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fail(ReasonCorrupt, "zip: %v", err)
	}
	if len(zr.File) > 100_000 {
		return nil, fail(ReasonTooBig, "zip of %d entries", len(zr.File))
	}
	a := &archive{ctx: ctx, lim: lim, files: make(map[string]*zip.File, len(zr.File))}
	for _, f := range zr.File {
		a.files[strings.TrimPrefix(path.Clean("/"+f.Name), "/")] = f
	}
	return a, nil
}

// read returns an entry's bytes; a missing entry gives (nil, nil) when
// optional.
func (a *archive) read(name string, optional bool) ([]byte, error) {
	if err := a.ctx.Err(); err != nil {
		return nil, &Error{Reason: ReasonTimeout, Err: err}
	}
	f, ok := a.files[strings.TrimPrefix(path.Clean("/"+name), "/")]
	if !ok {
		if optional {
			return nil, nil
		}
		return nil, fail(ReasonCorrupt, "missing %s", name)
	}
	if f.Flags&0x1 != 0 {
		return nil, fail(ReasonEncrypted, "%s is encrypted", name)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fail(ReasonCorrupt, "%s: %v", name, err)
	}
	defer rc.Close()
	limit := min(a.lim.MaxEntryBytes, a.lim.MaxTotalBytes-a.total)
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(rc, limit+1))
	a.total += n
	if n > limit {
		return nil, fail(ReasonTooBig, "%s decompresses past %d bytes", name, limit)
	}
	if err != nil {
		return nil, fail(ReasonCorrupt, "%s: %v", name, err)
	}
	return buf.Bytes(), nil
}

// isOLE reports the compound-file signature: an encrypted OOXML file is an
// OLE container, not a zip.
func isOLE(data []byte) bool {
	return bytes.HasPrefix(data, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1})
}

// openOOXML opens an Office Open XML package, telling an encrypted one
// (which Office wraps in OLE) from a corrupt one.
func openOOXML(ctx context.Context, data []byte, lim Limits) (*archive, error) {
	if isOLE(data) {
		return nil, fail(ReasonEncrypted, "password-protected or legacy Office file")
	}
	return openArchive(ctx, data, lim)
}

// relationship is one entry of an OOXML .rels part.
type relationship struct {
	ID     string `xml:"Id,attr"`
	Target string `xml:"Target,attr"`
	Mode   string `xml:"TargetMode,attr"`
}

// relationships reads the .rels part describing part; a part without one
// has none.
func (a *archive) relationships(part string) ([]relationship, error) {
	dir, file := path.Split(part)
	data, err := a.read(dir+"_rels/"+file+".rels", true)
	if err != nil || data == nil {
		return nil, err
	}
	var r struct {
		Rel []relationship `xml:"Relationship"`
	}
	if err := xmlUnmarshal(data, &r); err != nil {
		return nil, fail(ReasonCorrupt, "%s rels: %v", part, err)
	}
	return r.Rel, nil
}

// rels reads a .rels part: relationship id to target path, resolved
// against the folder of the part it describes.
func (a *archive) rels(part string) (map[string]string, error) {
	rs, err := a.relationships(part)
	if err != nil {
		return nil, err
	}
	dir, _ := path.Split(part)
	out := make(map[string]string, len(rs))
	for _, x := range rs {
		if x.Mode == "External" {
			continue
		}
		t := x.Target
		if strings.HasPrefix(t, "/") {
			t = t[1:]
		} else {
			t = path.Join(dir, t)
		}
		out[x.ID] = t
	}
	return out, nil
}

// externalLinks reads the external targets (hyperlinks) of a part's
// relationships; only http, https and mailto URLs are kept.
func (a *archive) externalLinks(part string) (map[string]string, error) {
	rs, err := a.relationships(part)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, x := range rs {
		t := strings.TrimSpace(x.Target)
		lt := strings.ToLower(t)
		if x.Mode == "External" && (strings.HasPrefix(lt, "http://") || strings.HasPrefix(lt, "https://") || strings.HasPrefix(lt, "mailto:")) &&
			!strings.ContainsAny(t, " ()<>\n") {
			out[x.ID] = t
		}
	}
	return out, nil
}
