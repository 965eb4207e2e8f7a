package vector

import "syscall"

// adviseRandom tells the kernel a walk reads the mapping at random: no
// read-ahead, so a search brings in the pages of the nodes it visits,
// not their neighbours on disk.
func adviseRandom(b []byte) { syscall.Madvise(b, syscall.MADV_RANDOM) }

// adviseUnneeded drops the pages of a read-only shared file mapping from
// the process: they stay in the page cache, and a later read faults them
// in again with the same bytes (the file is never written in place).
func adviseUnneeded(b []byte) { syscall.Madvise(b, syscall.MADV_DONTNEED) }
