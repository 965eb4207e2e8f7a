// Command gnostart times whole gno processes of several builds in one
// paired, interleaved run: every round runs each arm once, in an order that
// rotates from round to round, so load that comes and goes on a shared
// machine falls on every arm alike. It reports the median and p90 of wall
// time, the median CPU time (user + system), minor page faults and peak RSS
// per arm.
//
//	gnostart -runs 30 -arm 'now=/tmp/gno,GNO_HOME=/tmp/h' -arm 'old=/tmp/gno-old,GNO_HOME=/tmp/h-old' -- search 'white matter' -n 10 --json
//
// An arm is LABEL=BINARY followed by comma-separated NAME=VALUE pairs added
// to the environment (an index built by an older gno may need its own
// GNO_HOME). Every run must exit 0; stdout is discarded. -before runs a
// shell command, untimed, before every run (to evict files from the page
// cache for a cold start, say), with ARM set to the arm's label.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/gnosearch/gno/bench/latency"
	"github.com/gnosearch/gno/bench/proc"
)

type arm struct {
	label, bin string
	env        []string
	wall, cpu  []time.Duration
	faults     []float64
	rss        []float64
}

type arms []*arm

func (a *arms) String() string { return fmt.Sprint(len(*a)) }

func (a *arms) Set(v string) error {
	parts := strings.Split(v, ",")
	label, bin, ok := strings.Cut(parts[0], "=")
	if !ok || label == "" || bin == "" {
		return fmt.Errorf("arm %q: want LABEL=BINARY[,NAME=VALUE...]", v)
	}
	x := &arm{label: label, bin: bin, env: os.Environ()}
	for _, kv := range parts[1:] {
		if !strings.Contains(kv, "=") {
			return fmt.Errorf("arm %q: %q is not NAME=VALUE", v, kv)
		}
		x.env = append(x.env, kv)
	}
	*a = append(*a, x)
	return nil
}

func main() {
	var as arms
	flag.Var(&as, "arm", "LABEL=BINARY[,NAME=VALUE...] (repeat, at least one)")
	runs := flag.Int("runs", 30, "timed runs per arm")
	warm := flag.Int("warm", 3, "untimed runs per arm first")
	before := flag.String("before", "", "shell command run (untimed) before every run; $ARM is the arm's label")
	flag.Parse()
	if len(as) == 0 || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: gnostart -arm LABEL=BINARY[,ENV=V...] [-arm ...] [-runs N] -- GNO-ARGS...")
		os.Exit(2)
	}
	args := flag.Args()
	ctx := context.Background()
	for r := -*warm; r < *runs; r++ {
		for i := range as {
			x := as[(i+max(r, 0))%len(as)]
			if *before != "" {
				hook := exec.Command("sh", "-c", *before)
				hook.Env = append(os.Environ(), "ARM="+x.label)
				hook.Stdout, hook.Stderr = os.Stderr, os.Stderr
				if err := hook.Run(); err != nil {
					fmt.Fprintf(os.Stderr, "-before: %v\n", err)
					os.Exit(1)
				}
			}
			res, err := proc.Run(ctx, proc.Cmd{Path: x.bin, Args: args, Env: x.env, Timeout: time.Minute})
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", x.label, err)
				os.Exit(1)
			}
			if r >= 0 {
				x.wall = append(x.wall, res.Wall)
				x.cpu = append(x.cpu, res.CPU)
				x.faults = append(x.faults, float64(res.MinorFaults))
				x.rss = append(x.rss, float64(res.MaxRSS)/(1<<20))
			}
		}
	}
	fmt.Printf("gno %s (%d runs per arm, interleaved, %d warm-up)\n\n", strings.Join(args, " "), *runs, *warm)
	fmt.Println("| arm | wall p50 ms | wall p90 ms | CPU p50 ms | minor faults p50 | peak RSS p50 MB | binary MB |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- |")
	for _, x := range as {
		size := "?"
		if st, err := os.Stat(x.bin); err == nil {
			size = fmt.Sprintf("%.1f", float64(st.Size())/1e6)
		}
		w := ms(x.wall)
		fmt.Printf("| %s | %.1f | %.1f | %.1f | %.0f | %.1f | %s |\n", x.label,
			latency.Percentile(w, 50), latency.Percentile(w, 90), latency.Percentile(ms(x.cpu), 50),
			median(x.faults), median(x.rss), size)
	}
}

func ms(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d) / float64(time.Millisecond)
	}
	sort.Float64s(out)
	return out
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return latency.Percentile(s, 50)
}
