//go:build !linux && !darwin

package server

import "os"

// ProtectStdout returns stdout unchanged where descriptors cannot be
// rearranged portably.
func ProtectStdout() (*os.File, error) { return os.Stdout, nil }
