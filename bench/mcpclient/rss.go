package mcpclient

import (
	"os"

	"github.com/gnosearch/gno/bench/proc"
)

func maxRSS(ps *os.ProcessState) int64 { return proc.MaxRSS(ps) }
