package vector

import "syscall"

// adviseRandom tells the kernel a walk reads the mapping at random: no
// read-ahead, so a search brings in the pages of the nodes it visits,
// not their neighbours on disk.
func adviseRandom(b []byte) { syscall.Madvise(b, syscall.MADV_RANDOM) }
