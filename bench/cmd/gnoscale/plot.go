package main

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// plotScale draws each cost against the number of documents, log-log, so a
// linear cost is a line of slope 1 and a flat one a horizontal line. A
// whole process is drawn by its CPU time, which a shared machine's load
// barely moves; round trips to the daemon and MCP by their wall time.
func plotScale(path string, all []*Size) error {
	series := []struct {
		name string
		get  func(*Size) float64
	}{
		{"first update CPU (s)", func(s *Size) float64 { return s.FirstCPUMS / 1000 }},
		{"unchanged update CPU (ms)", func(s *Size) float64 { return s.UnchangedCPU }},
		{"one changed file CPU (ms)", func(s *Size) float64 { return s.OneCPU }},
		{"search one-shot CPU p50 (ms)", func(s *Size) float64 { return s.SearchCPU }},
		{"search daemon wall p50 (ms)", func(s *Size) float64 { return s.DSearch.P50 }},
		{"MCP gno_search wall p50 (ms)", func(s *Size) float64 { return s.MCP.P50 }},
		{"daemon RSS (MB)", func(s *Size) float64 { return float64(s.DaemonRSS) / 1e6 }},
		{"index (MB)", func(s *Size) float64 { return float64(s.IndexBytes) / 1e6 }},
		{"status CPU (ms)", func(s *Size) float64 { return s.StatusCPU }},
		{"ls CPU (ms)", func(s *Size) float64 { return s.LsCPU }},
		{"graph scene wall (ms)", func(s *Size) float64 { return s.GraphMS }},
	}
	p := plot.New()
	p.Title.Text = "gno cost against corpus size (log-log; CPU where the process is timed, wall for daemon and MCP round trips)"
	p.X.Label.Text = "documents"
	p.Y.Label.Text = "cost (unit in legend)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{}, plot.LogTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	for i, se := range series {
		var xy plotter.XYs
		for _, s := range all {
			if v := se.get(s); v > 0 {
				xy = append(xy, plotter.XY{X: float64(s.Docs), Y: v})
			}
		}
		if len(xy) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return fmt.Errorf("plot %s: %w", se.name, err)
		}
		l.Color, pts.Color = plotutil.Color(i), plotutil.Color(i)
		pts.Shape = plotutil.Shape(i)
		l.Dashes = plotutil.Dashes(i / 7)
		p.Legend.Add(se.name, l, pts)
		p.Add(l, pts)
	}
	p.Y.Max *= 30
	if err := p.Save(9*vg.Inch, 6*vg.Inch, path); err != nil {
		return fmt.Errorf("save plot %s: %w", path, err)
	}
	return nil
}
