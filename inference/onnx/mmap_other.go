//go:build !unix

package onnx

import "os"

// mapFile reads path whole where gno does not map files; mapped is false,
// so the runtime copies what it keeps (it may not hold on to Go memory).
func mapFile(path string) (data []byte, release func(), mapped bool, err error) {
	data, err = os.ReadFile(path)
	return data, func() {}, false, err
}
