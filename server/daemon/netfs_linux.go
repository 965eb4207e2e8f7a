package daemon

import "golang.org/x/sys/unix"

// remoteFS is why the folder dir, on a network or FUSE file system, is
// walked ("" for a local one, or when statfs fails: the sync says why).
func remoteFS(dir string) string {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return ""
	}
	return remoteReason(int64(st.Type)) // f_type is int32 on some architectures
}
