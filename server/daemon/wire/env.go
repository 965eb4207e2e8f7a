package wire

import "os"

// envPrefixes and envNames are the variables that change what a read
// command prints or which model answers it, besides the paths a request
// carries: gno's own, the model servers', the time zone and proxies. A
// daemon started with other values would answer differently, so it
// refuses.
var (
	envPrefixes = [...]string{"GNO_", "OPENAI_", "OLLAMA_"}
	envNames    = [...]string{"TZ", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY"}
)

// EnvSig summarises environ (os.Environ's form) as "NAME=hash;…" over
// the variables that matter, sorted by name, each value hashed (a request
// never carries a secret such as OPENAI_API_KEY in clear).
func EnvSig(environ []string) string {
	var kept []string
	for _, kv := range environ {
		name, value, ok := cut(kv, '=')
		if !ok || !Relevant(name) {
			continue
		}
		e := name + "=" + hex(hash(value))
		// Insertion sort: a handful of entries.
		i := len(kept)
		kept = append(kept, e)
		for ; i > 0 && kept[i-1] > e; i-- {
			kept[i] = kept[i-1]
		}
		kept[i] = e
	}
	out := ""
	for i, e := range kept {
		if i > 0 {
			out += ";"
		}
		out += e
	}
	return out
}

// Relevant reports whether the variable name is one EnvSig covers.
func Relevant(name string) bool {
	up := upperASCII(name)
	for _, p := range envPrefixes {
		if hasPrefix(up, p) {
			return true
		}
	}
	for _, n := range envNames {
		if up == n {
			return true
		}
	}
	return false
}

// hash is FNV-1a, 64 bits.
func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Build identifies the running binary by its file: size, modification
// time and (where there is one) device and inode. Two processes of the
// same file agree; a rebuilt or upgraded binary, or a copy, does not, so
// a client never gets output from other code than its own.
func Build() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return itoa(fi.Size()) + "-" + itoa(fi.ModTime().UnixNano()) + fileID(fi)
}

// SocketName is the socket's file name for an index directory.
func SocketName(indexDir string) string { return hex(hash(indexDir)) + ".sock" }
