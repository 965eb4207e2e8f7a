package dirs

import "path/filepath"

func join(elem ...string) string { return filepath.Join(elem...) }

func isAbs(p string) bool { return filepath.IsAbs(p) }

func abs(p string) (string, error) { return filepath.Abs(p) }
