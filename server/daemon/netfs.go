package daemon

// A network or FUSE file system may change without the kernel's events
// (another machine writes to the NFS export, the FUSE daemon fetches
// files): the watcher cannot vouch for a collection on one, so `gno
// update` walks it.

// remoteMagic names the file systems (by statfs f_type) whose changes
// inotify may not see.
var remoteMagic = map[int64]string{
	0x6969:     "NFS",
	0x517b:     "SMB",
	0xff534d42: "CIFS",
	0xfe534d42: "SMB2",
	0x65735546: "FUSE",
	0x01021997: "9p",
}

// remoteReason is why a collection on a file system of type magic is
// walked ("" for a local one).
func remoteReason(magic int64) string {
	if name, ok := remoteMagic[magic]; ok {
		return "the collection is on a " + name + " file system, whose changes the watcher may not see"
	}
	return ""
}
