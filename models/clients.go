package models

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Package registries are reached through their own clients (npm, mvn,
// pip) unless a base URL is given (GNO_ORT_NPM_URL, GNO_MAVEN_URL,
// GNO_PYPI_URL; the tests' local servers). The clients carry the user's
// registry, mirror, proxy and credential settings, so gno hard-codes no
// registry host and works behind a company mirror unchanged. Whatever a
// client fetches is verified against gno's own pins afterwards.

// runClient runs an ecosystem client that downloads one artifact into
// dir, then returns the file it wrote that matches glob (ignoring case).
func runClient(ctx context.Context, dir, glob, name string, args ...string) (string, error) {
	if _, err := exec.LookPath(name); err != nil {
		return "", fmt.Errorf("%s not found on PATH (install it, or point gno at a mirror URL)", name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if len(msg) > 400 {
			msg = "…" + msg[len(msg)-400:]
		}
		return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, msg)
	}
	// Wheel names keep the project's own case: match without it.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if ok, _ := filepath.Match(strings.ToLower(glob), strings.ToLower(e.Name())); ok && !e.IsDir() {
			return filepath.Join(dir, e.Name()), nil
		}
	}
	return "", fmt.Errorf("%s wrote no %s into %s", name, glob, dir)
}

// npmPack fetches the pinned onnxruntime-node tarball with `npm pack`.
func npmPack(ctx context.Context, dir string) (string, error) {
	return runClient(ctx, dir, npmTarball.Name, "npm", "pack", "--silent", "onnxruntime-node@"+RuntimeVersion)
}

// mavenCopy fetches the jar of "group:artifact:version" with Maven's
// dependency plugin.
func mavenCopy(ctx context.Context, dir, coord string) (string, error) {
	parts := strings.Split(coord, ":")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", fmt.Errorf("maven artifact %q is not group:artifact:version", coord)
	}
	return runClient(ctx, dir, parts[1]+"-"+parts[2]+".jar", "mvn", "-q", "-B", "-Dstyle.color=never",
		"dependency:copy", "-Dartifact="+coord, "-DoutputDirectory="+dir)
}

// pipDownload fetches the wheel of "name==version" with pip.
func pipDownload(ctx context.Context, dir, req string) (string, error) {
	name, version, ok := strings.Cut(req, "==")
	if !ok || name == "" || version == "" {
		return "", fmt.Errorf("pypi artifact %q is not name==version", req)
	}
	py := "python3"
	if _, err := exec.LookPath(py); err != nil {
		py = "python"
	}
	norm := strings.ReplaceAll(strings.ToLower(pypiNormRE.ReplaceAllString(name, "-")), "-", "_")
	return runClient(ctx, dir, norm+"-"+version+"-*.whl", py, "-m", "pip", "download", "-q", "--no-deps",
		"--no-cache-dir", "--disable-pip-version-check", "-d", dir, req)
}
