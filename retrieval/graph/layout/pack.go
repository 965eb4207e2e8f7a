package layout

import "math"

// placedComp is a laid-out component: its nodes' global ids and local
// positions (interleaved), which pack translates.
type placedComp struct {
	nodes []int32
	pos   []float64
}

// pack moves the components (largest first) apart: the largest at the
// origin, every other one on rings around it in order of size, so the
// medium components sit close to the main one and isolated notes form an
// outer halo, as in Obsidian. It is O(components), unlike spiral or
// polyomino packing, which matters for a vault of thousands of unlinked
// notes. The whole drawing is then centred on the origin.
func pack(cs []placedComp) {
	if len(cs) == 0 {
		return
	}
	radius := make([]float64, len(cs))
	for i, c := range cs {
		n := len(c.nodes)
		var cx, cy float64
		for k := 0; k < n; k++ {
			cx += c.pos[2*k]
			cy += c.pos[2*k+1]
		}
		cx, cy = cx/float64(n), cy/float64(n)
		r := 0.0
		for k := 0; k < n; k++ {
			c.pos[2*k] -= cx
			c.pos[2*k+1] -= cy
			r = max(r, math.Hypot(c.pos[2*k], c.pos[2*k+1]))
		}
		radius[i] = r
	}
	// The spacing of the drawing: the room a node of the largest
	// component has (its disc's area over its nodes). Small components
	// are set that far apart, so a thousand orphans make a thin halo
	// rather than a field dwarfing the graph.
	unit := 1.0
	if n := len(cs[0].nodes); n > 2 {
		unit = min(1, max(0.05, radius[0]*math.Sqrt(math.Pi/float64(n))))
	}
	for i := range radius {
		radius[i] += 0.5 * unit // room for the node's own disc
	}
	ringGap := 2 * unit
	// gap between neighbours on a ring: a third of their size, at least
	// one unit, so singletons stay a little apart and large components
	// well apart.
	gap := func(a, b float64) float64 { return max(unit, (a+b)/3) }
	inner := radius[0] // the disc the next ring must clear
	for i := 1; i < len(cs); {
		// A ring: its items' centres lie on a circle of radius R, chosen
		// for its first (largest) item; it takes items while they fit
		// side by side, then spreads them evenly around.
		R := inner + ringGap + radius[i]
		start, used := i, 0.0
		var steps []float64
		for i < len(cs) {
			r := radius[i]
			step := 0.0
			if i > start {
				step = (radius[i-1] + r + gap(radius[i-1], r)) / R
			}
			// The last item must also clear the first one.
			closing := (r + radius[start] + gap(r, radius[start])) / R
			if i > start && used+step+closing > 2*math.Pi {
				break
			}
			used += step
			steps = append(steps, step)
			i++
		}
		closing := (radius[i-1] + radius[start] + gap(radius[i-1], radius[start])) / R
		spread := 1.0
		if i-start > 1 {
			spread = 2 * math.Pi / (used + closing)
		}
		angle, thick := 0.0, 0.0
		for k, step := range steps {
			angle += step * spread
			thick = max(thick, radius[start+k])
			x, y := R*math.Cos(angle), R*math.Sin(angle)
			c := cs[start+k]
			for j := range c.nodes {
				c.pos[2*j] += x
				c.pos[2*j+1] += y
			}
		}
		inner = R + thick
	}
	minX, minY := math.Inf(1), math.Inf(1)
	maxX, maxY := math.Inf(-1), math.Inf(-1)
	for _, c := range cs {
		for k := range c.nodes {
			minX, maxX = min(minX, c.pos[2*k]), max(maxX, c.pos[2*k])
			minY, maxY = min(minY, c.pos[2*k+1]), max(maxY, c.pos[2*k+1])
		}
	}
	mx, my := (minX+maxX)/2, (minY+maxY)/2
	for _, c := range cs {
		for k := range c.nodes {
			c.pos[2*k] -= mx
			c.pos[2*k+1] -= my
		}
	}
}
