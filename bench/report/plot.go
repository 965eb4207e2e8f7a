package report

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Plot draws whole-process CLI p50 (solid) and p95 (dashed) and warm MCP
// p50 (dotted) latency against corpus size, one colour per mode, from the
// synthetic corpora, and writes
// a PNG to path. It writes nothing, and returns false, when no synthetic
// corpus has latency figures.
func Plot(path string, r *Run) (bool, error) {
	type pt struct{ docs, p50, p95, mcp float64 }
	byMode := map[string][]pt{}
	var order []string
	for _, c := range r.Corpora {
		for _, m := range c.Modes {
			if m.CLI == nil || m.CLI.N == 0 {
				continue
			}
			if _, ok := byMode[m.Mode]; !ok {
				order = append(order, m.Mode)
			}
			var mcp float64
			if m.MCP != nil {
				mcp = m.MCP.P50
			}
			byMode[m.Mode] = append(byMode[m.Mode], pt{float64(c.Docs), m.CLI.P50, m.CLI.P95, mcp})
		}
	}
	if len(order) == 0 {
		return false, nil
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("gno latency vs corpus size (%d cores)", r.Machine.Cores)
	p.X.Label.Text = "documents"
	p.Y.Label.Text = "ms per query"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = ticks125{}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = ticks125{}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	for i, mode := range order {
		pts := byMode[mode]
		sort.Slice(pts, func(a, b int) bool { return pts[a].docs < pts[b].docs })
		p50 := make(plotter.XYs, len(pts))
		p95 := make(plotter.XYs, len(pts))
		var mcp plotter.XYs
		for j, q := range pts {
			p50[j] = plotter.XY{X: q.docs, Y: q.p50}
			p95[j] = plotter.XY{X: q.docs, Y: q.p95}
			if q.mcp > 0 {
				mcp = append(mcp, plotter.XY{X: q.docs, Y: q.mcp})
			}
		}
		col := plotutil.Color(i)
		for k, xy := range []plotter.XYs{p50, p95, mcp} {
			if len(xy) == 0 {
				continue
			}
			l, s, err := plotter.NewLinePoints(xy)
			if err != nil {
				return false, fmt.Errorf("plot %s: %w", mode, err)
			}
			l.Color, s.Color = col, col
			s.Shape = plotutil.Shape(i)
			switch k {
			case 0:
				p.Legend.Add(mode+": CLI p50 (p95 dashed, warm MCP p50 dotted)", l, s)
			case 1:
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
				l.Color, s.Color = fade(col), fade(col)
			case 2:
				l.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
			}
			p.Add(l, s)
		}
	}
	// Head room for the legend, which sits top left.
	p.Y.Max *= 3
	if err := p.Save(8*vg.Inch, 5*vg.Inch, path); err != nil {
		return false, fmt.Errorf("save plot %s: %w", path, err)
	}
	return true, nil
}

func fade(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 140}
}

// ticks125 labels a log axis at 1, 2, 5, 10, 20, 50, …, which reads better
// than powers of ten alone over the one or two decades a run spans.
type ticks125 struct{}

func (ticks125) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for dec := math.Pow(10, math.Floor(math.Log10(lo))); dec <= hi; dec *= 10 {
		for _, m := range []float64{1, 2, 5} {
			v := m * dec
			if v >= lo && v <= hi {
				ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
			}
		}
	}
	return ts
}
