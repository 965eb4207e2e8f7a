package convert

import (
	"bytes"
	"context"
	"path"
	"strings"

	"golang.org/x/net/html"
)

// EPUB converts an e-book: its spine's XHTML chapters in reading order,
// each through the HTML converter.
func EPUB(ctx context.Context, data []byte, lim Limits) (*Doc, error) {
	a, err := openArchive(ctx, data, lim)
	if err != nil {
		return nil, err
	}
	cont, err := a.read("META-INF/container.xml", false)
	if err != nil {
		return nil, err
	}
	var c struct {
		Rootfiles []struct {
			Path string `xml:"full-path,attr"`
		} `xml:"rootfiles>rootfile"`
	}
	if err := xmlUnmarshal(cont, &c); err != nil || len(c.Rootfiles) == 0 {
		return nil, fail(ReasonCorrupt, "META-INF/container.xml names no package")
	}
	if enc, err := a.read("META-INF/encryption.xml", true); err != nil {
		return nil, err
	} else if drmProtected(enc) {
		return nil, fail(ReasonEncrypted, "EPUB content is encrypted (DRM)")
	}
	opfPath := c.Rootfiles[0].Path
	opf, err := a.read(opfPath, false)
	if err != nil {
		return nil, err
	}
	var pkg struct {
		Title    []string `xml:"metadata>title"`
		Manifest []struct {
			ID   string `xml:"id,attr"`
			Href string `xml:"href,attr"`
			Type string `xml:"media-type,attr"`
		} `xml:"manifest>item"`
		Spine []struct {
			IDRef string `xml:"idref,attr"`
		} `xml:"spine>itemref"`
	}
	if err := xmlUnmarshal(opf, &pkg); err != nil {
		return nil, fail(ReasonCorrupt, "%s: %v", opfPath, err)
	}
	if len(pkg.Spine) > lim.MaxPages {
		return nil, fail(ReasonTooBig, "%d chapters, more than %d", len(pkg.Spine), lim.MaxPages)
	}
	hrefs := map[string]string{}
	for _, it := range pkg.Manifest {
		if strings.Contains(it.Type, "html") {
			hrefs[it.ID] = it.Href
		}
	}
	dir := path.Dir(opfPath)
	var out blocks
	for _, it := range pkg.Spine {
		href, ok := hrefs[it.IDRef]
		if !ok {
			continue
		}
		if i := strings.IndexByte(href, '#'); i >= 0 {
			href = href[:i]
		}
		x, err := a.read(path.Join(dir, href), true)
		if err != nil {
			return nil, err
		}
		if x == nil {
			continue
		}
		root, err := html.Parse(bytes.NewReader(x))
		if err != nil {
			continue
		}
		if t := findElement(root, "title"); t != nil {
			t.Parent.RemoveChild(t)
		}
		d, err := htmlNode(ctx, root)
		if err != nil {
			return nil, err
		}
		out.add(d.Markdown)
	}
	title := ""
	if len(pkg.Title) > 0 {
		title = strings.TrimSpace(pkg.Title[0])
	}
	return &Doc{Markdown: out.String(), Title: title}, nil
}

// drmProtected reports an encryption.xml that encrypts content documents;
// one that only obfuscates fonts (common in EPUBs) does not count.
func drmProtected(enc []byte) bool {
	if enc == nil {
		return false
	}
	var e struct {
		Refs []struct {
			URI string `xml:"URI,attr"`
		} `xml:"EncryptedData>CipherData>CipherReference"`
	}
	if xmlUnmarshal(enc, &e) != nil {
		return false
	}
	for _, r := range e.Refs {
		u := strings.ToLower(r.URI)
		if strings.HasSuffix(u, "html") || strings.HasSuffix(u, ".htm") || strings.HasSuffix(u, ".xml") {
			return true
		}
	}
	return false
}
