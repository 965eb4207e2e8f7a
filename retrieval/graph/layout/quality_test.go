package layout

import (
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"sort"
)

// Quality measures a layout against its graph, so speed-ups that yield
// a hairball show up in the benchmarks:
//   - np: neighbourhood preservation, the mean Jaccard overlap between a
//     node's graph neighbours and as many nearest nodes in the drawing
//     (1 is perfect; random placement scores near 0);
//   - stress: normalised stress of drawn against graph distances over
//     BFS from sampled sources, after the best uniform scale (0 is
//     perfect);
//   - cv: coefficient of variation of edge lengths (lower is more
//     uniform).
type Quality struct{ NP, Stress, CV float64 }

func Measure(g Graph, pos []float32, samples int) Quality {
	n := g.N
	adj := make([][]int32, n)
	for _, e := range g.Edges {
		if e[0] != e[1] {
			adj[e[0]] = append(adj[e[0]], e[1])
			adj[e[1]] = append(adj[e[1]], e[0])
		}
	}
	for i := range adj {
		sort.Slice(adj[i], func(a, b int) bool { return adj[i][a] < adj[i][b] })
		w := 0
		for k, v := range adj[i] {
			if k == 0 || v != adj[i][k-1] {
				adj[i][w] = v
				w++
			}
		}
		adj[i] = adj[i][:w]
	}
	dist := func(i, j int) float64 {
		return math.Hypot(float64(pos[2*i]-pos[2*j]), float64(pos[2*i+1]-pos[2*j+1]))
	}
	r := newRNG(99)
	var q Quality
	// Neighbourhood preservation.
	cnt := 0
	type nd struct {
		d float64
		j int32
	}
	buf := make([]nd, 0, n)
	for s := 0; s < samples*4 && cnt < samples; s++ {
		i := int(r.next() % uint64(n))
		k := len(adj[i])
		if k == 0 {
			continue
		}
		buf = buf[:0]
		for j := 0; j < n; j++ {
			if j != i {
				buf = append(buf, nd{dist(i, j), int32(j)})
			}
		}
		sort.Slice(buf, func(a, b int) bool { return buf[a].d < buf[b].d })
		nb := map[int32]bool{}
		for _, v := range adj[i] {
			nb[v] = true
		}
		inter := 0
		for _, x := range buf[:k] {
			if nb[x.j] {
				inter++
			}
		}
		q.NP += float64(inter) / float64(2*k-inter)
		cnt++
	}
	if cnt > 0 {
		q.NP /= float64(cnt)
	}
	// Stress over BFS distances from sampled sources, same component.
	var sxy, sxx float64
	type pair struct{ dl, dg float64 }
	var pairs []pair
	dg := make([]int32, n)
	for s := 0; s < samples/10+1; s++ {
		src := int(r.next() % uint64(n))
		for i := range dg {
			dg[i] = -1
		}
		dg[src] = 0
		queue := []int32{int32(src)}
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			for _, v := range adj[u] {
				if dg[v] < 0 {
					dg[v] = dg[u] + 1
					queue = append(queue, v)
				}
			}
		}
		for j := 0; j < n; j++ {
			if dg[j] > 0 {
				dl, g := dist(src, j), float64(dg[j])
				pairs = append(pairs, pair{dl, g})
				sxy += dl / g
				sxx += dl * dl / (g * g)
			}
		}
	}
	if sxx > 0 {
		scale := sxy / sxx
		var num float64
		for _, p := range pairs {
			d := (scale*p.dl - p.dg) / p.dg
			num += d * d
		}
		q.Stress = num / float64(len(pairs))
	}
	// Edge length spread.
	var sum, sum2 float64
	m := 0
	for i := range adj {
		for _, j := range adj[i] {
			if int(j) > i {
				l := dist(i, int(j))
				sum += l
				sum2 += l * l
				m++
			}
		}
	}
	if m > 0 {
		mean := sum / float64(m)
		q.CV = math.Sqrt(max(0, sum2/float64(m)-mean*mean)) / mean
	}
	return q
}

// DrawPNG writes a picture of a layout, for looking at while tuning.
func DrawPNG(path string, g Graph, pos []float32, size int) error {
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	minX, minY, maxX, maxY := float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Inf(-1))
	for i := 0; i < g.N; i++ {
		minX, maxX = min(minX, pos[2*i]), max(maxX, pos[2*i])
		minY, maxY = min(minY, pos[2*i+1]), max(maxY, pos[2*i+1])
	}
	sc := float32(size-20) / max(maxX-minX, maxY-minY, 1e-6)
	px := func(i int32) (int, int) {
		return 10 + int((pos[2*i]-minX)*sc), 10 + int((pos[2*i+1]-minY)*sc)
	}
	blend := func(x, y int, a float64) {
		if x < 0 || y < 0 || x >= size || y >= size {
			return
		}
		o := img.PixOffset(x, y)
		for c := 0; c < 3; c++ {
			img.Pix[o+c] = uint8(float64(img.Pix[o+c]) * (1 - a))
		}
	}
	for _, e := range g.Edges {
		x0, y0 := px(e[0])
		x1, y1 := px(e[1])
		steps := max(abs(x1-x0), abs(y1-y0), 1)
		for s := 0; s <= steps; s++ {
			blend(x0+(x1-x0)*s/steps, y0+(y1-y0)*s/steps, 0.08)
		}
	}
	for i := 0; i < g.N; i++ {
		x, y := px(int32(i))
		for dx := -1; dx <= 1; dx++ {
			for dy := -1; dy <= 1; dy++ {
				if x+dx >= 0 && y+dy >= 0 && x+dx < size && y+dy < size {
					img.Set(x+dx, y+dy, color.RGBA{200, 60, 40, 255})
				}
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return png.Encode(f, img)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
