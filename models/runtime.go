package models

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// RuntimeVersion is the ONNX Runtime release gno fetches; inference/onnx
// needs this version or later (its C API level).
const RuntimeVersion = "1.24.1"

// RuntimeDir is the model cache's folder for the ONNX Runtime library,
// one of the places inference/onnx looks for it.
func RuntimeDir(modelsDir string) string { return filepath.Join(modelsDir, "onnxruntime") }

// releaseBase is where the official builds are published. The npm
// package onnxruntime-node carries the same libraries for most platforms
// and is the mirror for machines that reach package registries only,
// fetched with npm itself unless RuntimeSources.NPM names a URL.
const releaseBase = "https://github.com/microsoft/onnxruntime/releases/download"

// npmTarball is the npm package, pinned as a whole (the same pin as
// models.mk used to check); its libraries are pinned again one by one.
var npmTarball = File{
	Name:   "onnxruntime-node-" + RuntimeVersion + ".tgz",
	SHA256: "57181cf6e6e711b155c5b942d591fd63ded0b5de5c4922d51fd994e7f6ac2772",
	Size:   85811498,
}

// RuntimePlatform describes the ONNX Runtime build for one GOOS/GOARCH:
// where its library sits in each source and the checksums it may have.
//
// What is pinned how (GitHub is unreachable where gno is developed, so no
// pin below was taken from a GitHub download):
//   - SHA256 lists the library checksums gno accepts, whichever source it
//     came from. Each was computed here from a file whose own checksum is
//     pinned elsewhere: the library inside the npm tarball (the tarball's
//     sha256 is npmSHA256) or the official-release library that
//     github.com/yalue/onnxruntime_go v1.27.0 ships in test_data (the module
//     is pinned by go.sum and the Go checksum database).
//   - The release archive itself is not pinned: its library is extracted
//     and must match SHA256 before it is installed. Should the archive's
//     library differ from every pin, setup reports it and uses the mirror.
type RuntimePlatform struct {
	GOOS, GOARCH string
	// Archive is the release asset (onnxruntime-linux-x64-1.24.1.tgz); empty
	// when the release has none for this platform.
	Archive string
	// Member is the library's path inside Archive.
	Member string
	// NPMMember is the library's path inside the npm tarball; empty when
	// the package has none for this platform.
	NPMMember string
	// Library is the installed file name, the one inference/onnx looks for.
	Library string
	// SHA256 lists the accepted checksums of the library file.
	SHA256 []string
	// Note explains a platform gno cannot fetch a runtime for.
	Note string
}

// RuntimePlatforms lists the platforms gno builds for.
var RuntimePlatforms = []RuntimePlatform{
	{
		GOOS: "linux", GOARCH: "amd64",
		Archive:   "onnxruntime-linux-x64-" + RuntimeVersion + ".tgz",
		Member:    "onnxruntime-linux-x64-" + RuntimeVersion + "/lib/libonnxruntime.so." + RuntimeVersion,
		NPMMember: "package/bin/napi-v6/linux/x64/libonnxruntime.so.1",
		Library:   "libonnxruntime.so." + RuntimeVersion,
		SHA256:    []string{"53ef1ac028dd1b05554b8da28d9159eb3876f99868193d2aaa6e67f0243c23d4"}, // npm
	},
	{
		GOOS: "linux", GOARCH: "arm64",
		Archive:   "onnxruntime-linux-aarch64-" + RuntimeVersion + ".tgz",
		Member:    "onnxruntime-linux-aarch64-" + RuntimeVersion + "/lib/libonnxruntime.so." + RuntimeVersion,
		NPMMember: "package/bin/napi-v6/linux/arm64/libonnxruntime.so.1",
		Library:   "libonnxruntime.so." + RuntimeVersion,
		// npm and onnxruntime_go's copy of the release library agree.
		SHA256: []string{"7954e8bdedb497f830c6a679e818d98399b7f4d81ade1126c3e0be74d28111ab"},
	},
	{
		GOOS: "darwin", GOARCH: "arm64",
		Archive:   "onnxruntime-osx-arm64-" + RuntimeVersion + ".tgz",
		Member:    "onnxruntime-osx-arm64-" + RuntimeVersion + "/lib/libonnxruntime." + RuntimeVersion + ".dylib",
		NPMMember: "package/bin/napi-v6/darwin/arm64/libonnxruntime." + RuntimeVersion + ".dylib",
		Library:   "libonnxruntime." + RuntimeVersion + ".dylib",
		SHA256: []string{
			"9626bbdd201fbed7e3addcbd9fc7e97ec4954c03afcf40a9883af50498bffb06", // release (onnxruntime_go test_data)
			"7ad6507ad64d3b02aebfae6380c024ff188939cd8a7a493ec18028e034c8275c", // npm
		},
	},
	{
		GOOS: "darwin", GOARCH: "amd64",
		Library: "libonnxruntime." + RuntimeVersion + ".dylib",
		Note: "ONNX Runtime stopped publishing macOS x86_64 builds with 1.24, and gno needs 1.24.1 or later; " +
			"build ONNX Runtime from source (or use a package manager's build) and set GNO_ORT_LIB " +
			"to its libonnxruntime.dylib. BM25 search works without it",
	},
	{
		GOOS: "windows", GOARCH: "amd64",
		Archive:   "onnxruntime-win-x64-" + RuntimeVersion + ".zip",
		Member:    "onnxruntime-win-x64-" + RuntimeVersion + "/lib/onnxruntime.dll",
		NPMMember: "package/bin/napi-v6/win32/x64/onnxruntime.dll",
		Library:   "onnxruntime.dll",
		SHA256: []string{
			"8a1aad8d59d02a5337d4e3f5bbd1158c3f7bf84fe3b3f0052f957dd3e75a91cb", // release (onnxruntime_go test_data)
			"be46630a10f6ed3897fd9d1ec83f6e2577e34851fb1024d685884ed40faed3a7", // npm (DirectML build, loads it lazily)
		},
	},
}

// ErrUnsupportedPlatform means gno knows no ONNX Runtime build to fetch
// for this OS and architecture.
var ErrUnsupportedPlatform = errors.New("no ONNX Runtime build to fetch for this platform")

// LookupRuntime returns the runtime build for goos/goarch.
func LookupRuntime(goos, goarch string) (RuntimePlatform, error) {
	for _, p := range RuntimePlatforms {
		if p.GOOS == goos && p.GOARCH == goarch {
			if p.Archive == "" && p.NPMMember == "" {
				return p, fmt.Errorf("%s/%s: %w: %s", goos, goarch, ErrUnsupportedPlatform, p.Note)
			}
			return p, nil
		}
	}
	return RuntimePlatform{}, fmt.Errorf("%s/%s: %w (gno fetches it for linux amd64/arm64, darwin arm64 and windows amd64; "+
		"elsewhere set GNO_ORT_LIB to an ONNX Runtime %s or later)", goos, goarch, ErrUnsupportedPlatform, RuntimeVersion)
}

// ArchiveURL is the official release archive's address.
func (p RuntimePlatform) ArchiveURL() string {
	return releaseBase + "/v" + RuntimeVersion + "/" + p.Archive
}

// accepts reports whether sum is one of the library's pinned checksums.
func (p RuntimePlatform) accepts(sum string) bool {
	for _, s := range p.SHA256 {
		if s == sum {
			return true
		}
	}
	return false
}

// RuntimeSources are the base URLs a runtime fetch uses; the zero value
// means the public ones. Tests point them at a local server.
type RuntimeSources struct {
	// Release replaces https://github.com/microsoft/onnxruntime/releases/download.
	Release string
	// NPM is a base URL holding onnxruntime-node tarballs; empty means
	// `npm pack` from the user's npm registry.
	NPM string
}

// RuntimeResult says what InstallRuntime did.
type RuntimeResult struct {
	Path    string   `json:"path"`
	SHA256  string   `json:"sha256"`
	Source  string   `json:"source"` // "installed already", "release archive" or "npm mirror"
	Skipped []string `json:"skipped,omitempty"`
}

// InstallRuntime puts the ONNX Runtime library for p into
// RuntimeDir(modelsDir): the official release archive first, then the npm
// package, each downloaded with resume and verified, the library extracted
// and checked against its pins before it is renamed into place. A library
// already installed with a pinned checksum is kept.
func InstallRuntime(ctx context.Context, modelsDir string, p RuntimePlatform, src RuntimeSources, opt PullOptions) (*RuntimeResult, error) {
	opt.defaults()
	dir := RuntimeDir(modelsDir)
	final := filepath.Join(dir, p.Library)
	if sum, _, err := hashFile(final); err == nil && p.accepts(sum) {
		return &RuntimeResult{Path: final, SHA256: sum, Source: "installed already"}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("ONNX Runtime: %w", err)
	}
	// One install at a time (two `gno setup` run together): the download
	// folder, its lock files and the extraction's .part file belong to
	// one install, which deletes the folder when done. The lock file lies
	// outside it and is never deleted, so every waiter locks the same one.
	lock, err := takeLock(ctx, filepath.Join(dir, ".install.lock"), "ONNX Runtime", opt.Progress)
	if err != nil {
		return nil, fmt.Errorf("ONNX Runtime: %w", err)
	}
	defer lock.Unlock()
	if sum, _, err := hashFile(final); err == nil && p.accepts(sum) {
		return &RuntimeResult{Path: final, SHA256: sum, Source: "installed already"}, nil
	}
	dl := filepath.Join(dir, "download")
	if err := os.MkdirAll(dl, 0o755); err != nil {
		return nil, fmt.Errorf("ONNX Runtime: %w", err)
	}
	res := &RuntimeResult{Path: final}
	type source struct {
		name, member string
		file         File
		npm          bool // fetched with `npm pack`
	}
	var sources []source
	if p.Archive != "" {
		base := src.Release
		if base == "" {
			base = releaseBase
		}
		sources = append(sources, source{"release archive", p.Member,
			File{Name: p.Archive, URL: strings.TrimSuffix(base, "/") + "/v" + RuntimeVersion + "/" + p.Archive}, false})
	}
	if p.NPMMember != "" {
		f := npmTarball
		if src.NPM != "" {
			f.URL = strings.TrimSuffix(src.NPM, "/") + "/" + f.Name
		} else {
			f.URL = "npm pack onnxruntime-node@" + RuntimeVersion
		}
		sources = append(sources, source{"npm mirror", p.NPMMember, f, src.NPM == ""})
	}
	var errs []string
	for _, s := range sources {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		archive := filepath.Join(dl, s.file.Name)
		var err error
		if s.npm {
			err = npmFetch(ctx, dl, archive)
		} else {
			err = fetchFile(ctx, archive, s.file, opt)
		}
		if err == nil {
			var sum string
			sum, err = extractLibrary(archive, s.member, final, p)
			if err == nil {
				os.RemoveAll(dl)
				res.SHA256, res.Source = sum, s.name
				return res, nil
			}
			os.Remove(archive) // a bad archive is not resumed next time
		}
		res.Skipped = append(res.Skipped, fmt.Sprintf("%s: %v", s.name, err))
		errs = append(errs, fmt.Sprintf("%s (%s): %v", s.name, s.file.URL, err))
	}
	return nil, fmt.Errorf("ONNX Runtime %s for %s/%s: every source failed:\n  %s\n(run `gno setup` again to resume, or set GNO_ORT_LIB to a library you have)",
		RuntimeVersion, p.GOOS, p.GOARCH, strings.Join(errs, "\n  "))
}

// npmFetch puts the pinned npm tarball at archive with `npm pack`,
// unless a verified copy is there already.
func npmFetch(ctx context.Context, dir, archive string) error {
	if sum, _, err := hashFile(archive); err == nil && sum == npmTarball.SHA256 {
		return nil
	}
	got, err := npmPack(ctx, dir)
	if err != nil {
		return err
	}
	sum, _, err := hashFile(got)
	if err != nil {
		return err
	}
	if sum != npmTarball.SHA256 {
		os.Remove(got)
		return fmt.Errorf("%s: sha256 %s, want %s", npmTarball.Name, sum, npmTarball.SHA256)
	}
	return nil
}

// fetchFile downloads f to dest with resume and verification; a file
// already complete at dest is checked and kept.
func fetchFile(ctx context.Context, dest string, f File, opt PullOptions) error {
	_, err := fetchTo(ctx, dest, f, opt)
	return err
}

// extractLibrary copies member out of a .tgz or .zip archive into final
// through a .part file, verifying the library's checksum on the way.
func extractLibrary(archive, member, final string, p RuntimePlatform) (string, error) {
	part := final + ".part"
	out, err := os.OpenFile(part, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	w := io.MultiWriter(out, h)
	if strings.HasSuffix(archive, ".zip") {
		err = copyZipMember(archive, member, w)
	} else {
		err = copyTarMember(archive, member, w)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(part)
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if !p.accepts(sum) {
		os.Remove(part)
		return "", fmt.Errorf("%s in %s: sha256 %s is not one gno pins (%s): %w",
			member, filepath.Base(archive), sum, strings.Join(p.SHA256, ", "), ErrChecksum)
	}
	if err := os.Rename(part, final); err != nil {
		return "", fmt.Errorf("install %s: %w", final, err)
	}
	return sum, nil
}

// copyTarMember writes the regular file member of a gzipped tar to w,
// following symbolic links inside the archive (release archives link
// libonnxruntime.so to the versioned file).
func copyTarMember(archive, member string, w io.Writer) error {
	for hops := 0; hops < 4; hops++ {
		target, err := scanTar(archive, member, w)
		if err != nil || target == "" {
			return err
		}
		member = path.Join(path.Dir(member), target)
	}
	return fmt.Errorf("%s: too many symbolic links at %s", filepath.Base(archive), member)
}

// scanTar copies member to w, or returns the link target when member is a
// symbolic link.
func scanTar(archive, member string, w io.Writer) (link string, err error) {
	f, err := os.Open(archive)
	if err != nil {
		return "", err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return "", fmt.Errorf("%s: %w", filepath.Base(archive), err)
	}
	tr := tar.NewReader(gz)
	var seen []string
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", filepath.Base(archive), err)
		}
		name := strings.TrimPrefix(hdr.Name, "./")
		if name != member {
			if strings.Contains(name, "onnxruntime") && len(seen) < 8 {
				seen = append(seen, name)
			}
			continue
		}
		switch hdr.Typeflag {
		case tar.TypeReg:
			if _, err := io.Copy(w, tr); err != nil {
				return "", fmt.Errorf("%s: %s: %w", filepath.Base(archive), member, err)
			}
			return "", nil
		case tar.TypeSymlink:
			return hdr.Linkname, nil
		default:
			return "", fmt.Errorf("%s: %s is not a regular file", filepath.Base(archive), member)
		}
	}
	return "", fmt.Errorf("%s has no %s (has %s)", filepath.Base(archive), member, strings.Join(seen, ", "))
}

func copyZipMember(archive, member string, w io.Writer) error {
	zr, err := zip.OpenReader(archive)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(archive), err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name != member {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("%s: %s: %w", filepath.Base(archive), member, err)
		}
		_, err = io.Copy(w, rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("%s: %s: %w", filepath.Base(archive), member, err)
		}
		return nil
	}
	return fmt.Errorf("%s has no %s", filepath.Base(archive), member)
}
