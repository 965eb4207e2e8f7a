package convert

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strings"

	"golang.org/x/net/html/charset"
	"gopkg.in/yaml.v3"
)

// maxMIMEDepth bounds nested multiparts: a message nesting deeper is
// malformed or hostile.
const maxMIMEDepth = 16

var wordDecoder = &mime.WordDecoder{CharsetReader: charset.NewReaderLabel}

// EML converts one e-mail message: its headers as YAML front matter
// (title is the subject), the text body (an HTML-only body goes through
// the HTML converter) and a list of attachments.
func EML(ctx context.Context, data []byte, lim Limits) (*Doc, error) {
	m, err := parseMail(ctx, data, lim)
	if err != nil {
		return nil, err
	}
	fm := yamlMap{}
	fm.add("title", m.subject)
	fm.add("from", m.from)
	fm.add("to", m.to)
	fm.add("cc", m.cc)
	fm.add("date", m.date)
	fm.add("message-id", m.id)
	front, _ := yaml.Marshal(fm.node())
	var b strings.Builder
	b.WriteString("---\n")
	b.Write(front)
	b.WriteString("---\n\n")
	var out blocks
	if m.subject != "" {
		out.add("# " + m.subject)
	}
	out.add(m.body)
	out.add(m.attachmentList("## Attachments"))
	b.WriteString(out.String())
	return &Doc{Markdown: b.String(), Title: m.subject}, nil
}

// MBOX converts a mailbox: a "## subject" section per message with its
// sender and date, body and attachments.
func MBOX(ctx context.Context, data []byte, lim Limits) (*Doc, error) {
	var out blocks
	n := 0
	for _, raw := range splitMbox(data) {
		if ctx.Err() != nil {
			return nil, &Error{Reason: ReasonTimeout, Err: ctx.Err()}
		}
		m, err := parseMail(ctx, raw, lim)
		if err != nil {
			continue // one broken message does not lose the others
		}
		n++
		subj := m.subject
		if subj == "" {
			subj = "(no subject)"
		}
		out.add("## " + subj)
		var meta []string
		for _, kv := range [][2]string{{"From", m.from}, {"To", m.to}, {"Date", m.date}} {
			if kv[1] != "" {
				meta = append(meta, "- "+kv[0]+": "+kv[1])
			}
		}
		out.add(strings.Join(meta, "\n"))
		out.add(m.body)
		out.add(m.attachmentList("### Attachments"))
	}
	if n == 0 {
		return nil, fail(ReasonCorrupt, "no readable message in mailbox")
	}
	return &Doc{Markdown: out.String()}, nil
}

// splitMbox cuts a mailbox at its "From " separator lines and undoes
// mboxrd ">From " quoting.
func splitMbox(data []byte) [][]byte {
	var msgs [][]byte
	var cur []byte
	started := false
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		line := data
		if i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		if bytes.HasPrefix(line, []byte("From ")) {
			if started && len(bytes.TrimSpace(cur)) > 0 {
				msgs = append(msgs, cur)
			}
			cur, started = nil, true
			continue
		}
		if bytes.HasPrefix(line, []byte(">From ")) || bytes.HasPrefix(line, []byte(">>From ")) {
			line = line[1:]
		}
		cur = append(cur, line...)
	}
	if len(bytes.TrimSpace(cur)) > 0 {
		msgs = append(msgs, cur)
	}
	return msgs
}

type attachment struct {
	name, typ string
	size      int
}

type message struct {
	subject, from, to, cc, date, id string
	body                            string
	attachments                     []attachment
	texts, htmls                    []string
}

func (m *message) attachmentList(heading string) string {
	if len(m.attachments) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(heading + "\n\n")
	for _, a := range m.attachments {
		fmt.Fprintf(&b, "- %s (%s, %d bytes)\n", escapeLine(a.name), a.typ, a.size)
	}
	return b.String()
}

func parseMail(ctx context.Context, data []byte, lim Limits) (*message, error) {
	msg, err := mail.ReadMessage(bufio.NewReader(bytes.NewReader(data)))
	if err != nil {
		return nil, fail(ReasonCorrupt, "mail: %v", err)
	}
	m := &message{
		subject: decodeHeader(msg.Header.Get("Subject")),
		from:    addresses(msg.Header, "From"),
		to:      addresses(msg.Header, "To"),
		cc:      addresses(msg.Header, "Cc"),
		date:    strings.TrimSpace(msg.Header.Get("Date")),
		id:      strings.TrimSpace(msg.Header.Get("Message-Id")),
	}
	if t, err := msg.Header.Date(); err == nil {
		m.date = t.UTC().Format("2006-01-02T15:04:05Z")
	}
	budget := lim.MaxTotalBytes
	if err := m.part(ctx, mimeHeader(msg.Header), msg.Body, 0, &budget); err != nil {
		return nil, err
	}
	switch {
	case len(m.texts) > 0:
		m.body = escapeText(strings.Join(m.texts, "\n\n"))
	case len(m.htmls) > 0:
		var parts []string
		for _, h := range m.htmls {
			if d, err := HTML(ctx, []byte(h), lim); err == nil {
				parts = append(parts, d.Markdown)
			}
		}
		m.body = strings.Join(parts, "\n\n")
	}
	return m, nil
}

type header interface{ Get(string) string }

type mimeHeader mail.Header

func (h mimeHeader) Get(k string) string { return mail.Header(h).Get(k) }

// part walks one MIME entity: text parts are kept, multiparts descended,
// everything else listed as an attachment.
func (m *message) part(ctx context.Context, h header, body io.Reader, depth int, budget *int64) error {
	if ctx.Err() != nil {
		return &Error{Reason: ReasonTimeout, Err: ctx.Err()}
	}
	ct := h.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || ct == "" {
		mt, params = "text/plain", map[string]string{"charset": "us-ascii"}
	}
	disp, dparams, _ := mime.ParseMediaType(h.Get("Content-Disposition"))
	if strings.HasPrefix(mt, "multipart/") {
		if depth >= maxMIMEDepth {
			return fail(ReasonTooBig, "MIME nesting deeper than %d", maxMIMEDepth)
		}
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return nil // a truncated multipart keeps what was read
			}
			if err := m.part(ctx, p.Header, p, depth+1, budget); err != nil {
				return err
			}
		}
	}
	data, err := io.ReadAll(io.LimitReader(decodeCTE(h.Get("Content-Transfer-Encoding"), body), *budget+1))
	if err != nil && len(data) == 0 {
		return nil
	}
	*budget -= int64(len(data))
	if *budget < 0 {
		return fail(ReasonTooBig, "message decodes past the size limit")
	}
	name := dparams["filename"]
	if name == "" {
		name = params["name"]
	}
	name = decodeHeader(name)
	if disp != "attachment" && (mt == "text/plain" || mt == "text/html") {
		text := decodeCharset(data, params["charset"])
		if mt == "text/plain" {
			m.texts = append(m.texts, text)
		} else {
			m.htmls = append(m.htmls, text)
		}
		return nil
	}
	if name == "" {
		name = "(unnamed)"
		if mt == "message/rfc822" {
			if sub, err := mail.ReadMessage(bytes.NewReader(data)); err == nil {
				name = decodeHeader(sub.Header.Get("Subject"))
			}
		}
	}
	m.attachments = append(m.attachments, attachment{name: name, typ: mt, size: len(data)})
	return nil
}

func decodeCTE(cte string, r io.Reader) io.Reader {
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, &stripSpace{r: r})
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	}
	return r
}

// stripSpace drops line breaks and spaces, which base64 bodies carry.
type stripSpace struct{ r io.Reader }

func (s *stripSpace) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := s.r.Read(p)
		k := 0
		for _, c := range p[:n] {
			if c != '\r' && c != '\n' && c != ' ' && c != '\t' {
				p[k] = c
				k++
			}
		}
		if k > 0 || err != nil {
			return k, err
		}
	}
}

func decodeCharset(data []byte, cs string) string {
	cs = strings.ToLower(strings.TrimSpace(cs))
	if cs == "" || cs == "utf-8" || cs == "us-ascii" || cs == "utf8" {
		return string(data)
	}
	r, err := charset.NewReaderLabel(cs, bytes.NewReader(data))
	if err != nil {
		return string(data)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return string(data)
	}
	return string(out)
}

func decodeHeader(s string) string {
	d, err := wordDecoder.DecodeHeader(s)
	if err != nil {
		d = s
	}
	return strings.Join(strings.Fields(d), " ")
}

func addresses(h mail.Header, key string) string {
	raw := h.Get(key)
	if raw == "" {
		return ""
	}
	p := mail.AddressParser{WordDecoder: wordDecoder}
	list, err := p.ParseList(raw)
	if err != nil {
		return decodeHeader(raw)
	}
	out := make([]string, len(list))
	for i, a := range list {
		if a.Name != "" {
			out[i] = a.Name + " <" + a.Address + ">"
		} else {
			out[i] = a.Address
		}
	}
	return strings.Join(out, ", ")
}

// yamlMap keeps front matter keys in order and drops empty values.
type yamlMap [][2]string

func (m *yamlMap) add(k, v string) {
	if v != "" {
		*m = append(*m, [2]string{k, v})
	}
}

func (m yamlMap) node() *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, kv := range m {
		n.Content = append(n.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Value: kv[0]},
			&yaml.Node{Kind: yaml.ScalarNode, Value: kv[1], Style: yaml.DoubleQuotedStyle})
	}
	return n
}
