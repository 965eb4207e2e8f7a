//go:build !linux

package daemon

// remoteFS is "" off Linux: the magic numbers are Linux's (the watcher's
// events on other systems are fsnotify's own concern).
func remoteFS(string) string { return "" }
