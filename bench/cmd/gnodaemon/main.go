// Command gnodaemon measures `gno daemon`: whole-process latency of CLI
// read commands answered by a running daemon beside the same commands run
// in-process (--no-daemon), paired and interleaved so both see the same
// load, counting the pairs whose stdout differs (the fast path promises
// byte-identical output); the daemon's idle CPU over a window; its memory.
// It can also write a synthetic corpus (bench/corpus) for the memory figure
// at scale.
//
//	gnodaemon -home H -dataset ../shared/eval/scifact -n 100     # latency pairs
//	gnodaemon -home H -n 40 -args '-n 10 --json'                 # JSON output
//	gnodaemon -home H -idle 60s                                  # idle CPU and RSS
//	gnodaemon -gen DIR -docs 50000                               # a corpus
//
// GNO_HOME=H must hold an index with a daemon running (gno daemon --detach).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gnosearch/gno/bench/beir"
	"github.com/gnosearch/gno/bench/corpus"
	"github.com/gnosearch/gno/bench/latency"
	"github.com/gnosearch/gno/bench/proc"
)

func main() {
	gno := flag.String("gno", "bin/gno", "the gno binary")
	home := flag.String("home", "", "GNO_HOME holding the index (and its running daemon)")
	dataset := flag.String("dataset", "", "BEIR dataset folder whose queries are searched")
	n := flag.Int("n", 100, "pairs per command")
	modes := flag.String("modes", "search,query --fast", "commands to time, comma-separated")
	tail := flag.String("args", "-n 10", "arguments after the query, space-separated (add --json to time JSON output)")
	idle := flag.Duration("idle", 0, "measure the daemon's CPU over this idle window (and its RSS)")
	gen := flag.String("gen", "", "write a synthetic corpus to this folder and exit")
	docs := flag.Int("docs", 50000, "documents of -gen")
	flag.Parse()
	ctx := context.Background()
	if *gen != "" {
		st, err := corpus.Generate(ctx, *gen, corpus.Options{Docs: *docs, Seed: 1})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("wrote %d files, %.1f MB to %s\n", st.Files, float64(st.Bytes)/1e6, *gen)
		return
	}
	if *home == "" {
		log.Fatal("-home is required")
	}
	env := append(os.Environ(), "GNO_HOME="+*home)
	pid := daemonPID(*home)
	if *idle > 0 {
		idleCPU(pid, *idle)
		return
	}
	qs := []string{"microstructural development of white matter"}
	if *dataset != "" {
		ds, err := beir.Load(ctx, *dataset)
		if err != nil {
			log.Fatal(err)
		}
		qs = qs[:0]
		for _, q := range ds.Queries {
			qs = append(qs, q.Text)
		}
	}
	var same []string
	fmt.Println("| command | pairs | wall p50 ms | wall p90 ms | CPU p50 ms | CPU p90 ms |")
	fmt.Println("| --- | --- | --- | --- | --- | --- |")
	for _, mode := range strings.Split(*modes, ",") {
		words := strings.Fields(mode)
		var dWall, pWall, dCPU, pCPU []time.Duration
		var differ int
		run := func(extra []string, q string) proc.Result {
			args := append(append(append(append([]string{}, extra...), words...), q), strings.Fields(*tail)...)
			r, err := proc.Run(ctx, proc.Cmd{Path: *gno, Args: args, Env: env})
			if err != nil {
				log.Fatalf("gno %s: %v", strings.Join(args, " "), err)
			}
			return r
		}
		// Warm both paths (page cache, the daemon's models) first.
		for i := 0; i < 3; i++ {
			run(nil, qs[i%len(qs)])
			run([]string{"--no-daemon"}, qs[i%len(qs)])
		}
		for i := 0; i < *n; i++ {
			q := qs[i%len(qs)]
			// Alternate which goes first, so neither always follows the other.
			var d, p proc.Result
			if i%2 == 0 {
				d = run(nil, q)
				p = run([]string{"--no-daemon"}, q)
			} else {
				p = run([]string{"--no-daemon"}, q)
				d = run(nil, q)
			}
			dWall, dCPU, pWall, pCPU = append(dWall, d.Wall), append(dCPU, d.CPU), append(pWall, p.Wall), append(pCPU, p.CPU)
			// The fast path promises byte-identical output: count pairs
			// where it is not, so a fast but wrong daemon cannot pass.
			if !bytes.Equal(d.Stdout, p.Stdout) {
				differ++
			}
		}
		row := func(name string, wall, cpu []time.Duration) {
			fmt.Printf("| `gno %s` %s | %d | %.1f | %.1f | %.1f | %.1f |\n", mode, name, len(wall),
				pct(wall, 50), pct(wall, 90), pct(cpu, 50), pct(cpu, 90))
		}
		row("(daemon)", dWall, dCPU)
		row("(in-process, --no-daemon)", pWall, pCPU)
		same = append(same, fmt.Sprintf("`gno %s`: stdout byte-identical in %d of %d pairs", mode, *n-differ, *n))
	}
	fmt.Println()
	for _, l := range same {
		fmt.Println(l)
	}
	fmt.Printf("daemon RSS: %s\n", rss(pid))
}

// pct is the nearest-rank p-th percentile of d in milliseconds.
func pct(d []time.Duration, p float64) float64 {
	ms := make([]float64, len(d))
	for i, x := range d {
		ms[i] = float64(x) / float64(time.Millisecond)
	}
	sort.Float64s(ms)
	return latency.Percentile(ms, p)
}

// daemonPID reads the running daemon's pid from its info file.
func daemonPID(home string) int {
	b, err := os.ReadFile(filepath.Join(home, "data", "default", "daemon.json"))
	if err != nil {
		log.Fatalf("no daemon: %v", err)
	}
	var in struct{ PID int }
	if err := json.Unmarshal(b, &in); err != nil {
		log.Fatal(err)
	}
	return in.PID
}

// ticks is the process's user + system CPU time in clock ticks.
func ticks(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		log.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return u + k
}

// idleCPU prints the CPU ticks the daemon used over d.
func idleCPU(pid int, d time.Duration) {
	hz := int64(100)
	if out, err := exec.Command("getconf", "CLK_TCK").Output(); err == nil {
		hz, _ = strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	}
	t0 := ticks(pid)
	time.Sleep(d)
	t1 := ticks(pid)
	fmt.Printf("daemon pid %d idle %s: %d ticks (%.2f CPU-s at %d Hz, %.3f %% of one core); RSS %s\n",
		pid, d, t1-t0, float64(t1-t0)/float64(hz), hz, 100*float64(t1-t0)/float64(hz)/d.Seconds(), rss(pid))
}

// rss reads VmRSS and VmHWM of pid.
func rss(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "?"
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") || strings.HasPrefix(l, "VmHWM:") {
			out = append(out, strings.Join(strings.Fields(l), " "))
		}
	}
	return strings.Join(out, ", ")
}
