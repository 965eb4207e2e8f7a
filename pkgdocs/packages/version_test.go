package packages

import (
	"context"
	"errors"
	"testing"
)

func TestLatestRelease(t *testing.T) {
	for _, c := range []struct {
		vs   []string
		want string
	}{
		{[]string{"v1.8.0", "v1.8.1", "v1.9.0-rc.1"}, "v1.8.1"},
		{[]string{"0.27.0", "0.28.0b1"}, "0.27.0"},
		{[]string{"1.0.0-alpha"}, ""},
		{nil, ""},
	} {
		if got := latestRelease(c.vs); got != c.want {
			t.Errorf("latestRelease(%v) = %q, want %q", c.vs, got, c.want)
		}
	}
	if got := shortList([]string{"1", "2", "3", "4"}, 2); got != "… 2 earlier, 3, 4" {
		t.Errorf("shortList: %q", got)
	}
}

// TestFetchVersionRefuses: no name, a version with spaces, Swift (no
// client), and latest offline are ErrNoVersion, before any client runs.
func TestFetchVersionRefuses(t *testing.T) {
	dir := t.TempDir()
	opt := Options{CacheDir: t.TempDir(), Fetch: true, Offline: true}
	for _, c := range []struct {
		eco           Ecosystem
		name, version string
	}{{Go, "", "v1.0.0"}, {NPM, "left-pad", "1.0 || 2"}, {Swift, "swift-retry", "1.2.0"}, {NPM, "left-pad", "latest"}} {
		if _, err := FetchVersion(context.Background(), dir, opt, c.eco, c.name, c.version); !errors.Is(err, ErrNoVersion) {
			t.Errorf("%s %q@%q: %v", c.eco, c.name, c.version, err)
		}
	}
}

// TestFetchVersionRefusesSources: a version asked for is a release, never a
// source a client would pack as one (npm takes file:, URLs and git specs).
func TestFetchVersionRefusesSources(t *testing.T) {
	for _, v := range []string{"file:/etc", "https://host/x.tgz", "git+ssh://git@host/x.git", "../x", "github:user/repo", "latest/../x"} {
		_, err := FetchVersion(context.Background(), t.TempDir(), Options{}, NPM, "left-pad", v)
		if !errors.Is(err, ErrNoVersion) {
			t.Errorf("FetchVersion(%q): %v, want ErrNoVersion", v, err)
		}
	}
}
