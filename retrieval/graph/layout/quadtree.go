package layout

import "math"

// quadtree is the Barnes–Hut tree: a cell far enough from a point (its
// side under θ times the distance) acts on it as one mass at its centre
// of mass. It is rebuilt every iteration into the same slices (no
// allocation after the first), by partitioning an index array in place,
// with up to leafSize points per leaf.
type quadtree struct {
	idx   []int32
	cells []cell
	stack []int32
	w     []float32
	pos   []float64
	// Interaction lists of one leaf (forces): far cells as x, y, mass
	// triples, and near points.
	far  []float64
	near []int32
}

type cell struct {
	cx, cy, mass float64 // centre of mass and total weight
	size         float64 // side of the square cell
	// The points' bounding box (leaves only).
	x0, y0, x1, y1 float64
	lo, hi         int32 // the points of a leaf: idx[lo:hi]
	child          [4]int32
	leaf           bool
}

var leafSize int32 = 12

const maxDepth = 32

func (t *quadtree) build(pos []float64, w []float32) {
	n := len(w)
	t.w, t.pos = w, pos
	t.idx = t.idx[:0]
	t.cells = t.cells[:0]
	if n == 0 {
		return
	}
	minX, minY, maxX, maxY := pos[0], pos[1], pos[0], pos[1]
	for i := 0; i < n; i++ {
		t.idx = append(t.idx, int32(i))
		x, y := pos[2*i], pos[2*i+1]
		minX, maxX = min(minX, x), max(maxX, x)
		minY, maxY = min(minY, y), max(maxY, y)
	}
	size := max(maxX-minX, maxY-minY) * 1.0001
	if size <= 0 {
		size = 1
	}
	t.node(0, int32(n), minX, minY, size, 0)
}

// node builds the cell over idx[lo:hi] covering [x0, x0+size) ×
// [y0, y0+size) and returns its index.
func (t *quadtree) node(lo, hi int32, x0, y0, size float64, depth int) int32 {
	id := int32(len(t.cells))
	t.cells = append(t.cells, cell{size: size, lo: lo, hi: hi, child: [4]int32{-1, -1, -1, -1}})
	if hi-lo <= leafSize || depth >= maxDepth {
		var cx, cy, m float64
		bx0, by0, bx1, by1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, i := range t.idx[lo:hi] {
			wi := float64(t.w[i])
			x, y := t.pos[2*i], t.pos[2*i+1]
			cx += x * wi
			cy += y * wi
			m += wi
			bx0, bx1 = min(bx0, x), max(bx1, x)
			by0, by1 = min(by0, y), max(by1, y)
		}
		c := &t.cells[id]
		c.leaf, c.mass, c.cx, c.cy = true, m, cx/m, cy/m
		c.x0, c.y0, c.x1, c.y1 = bx0, by0, bx1, by1
		return id
	}
	h := size / 2
	mx, my := x0+h, y0+h
	// Split by y, then each half by x: quadrants 0 (low y, low x),
	// 1 (low y, high x), 2 (high y, low x), 3 (high y, high x).
	midY := t.partition(lo, hi, func(i int32) bool { return t.pos[2*i+1] < my })
	midX0 := t.partition(lo, midY, func(i int32) bool { return t.pos[2*i] < mx })
	midX1 := t.partition(midY, hi, func(i int32) bool { return t.pos[2*i] < mx })
	bounds := [5]int32{lo, midX0, midY, midX1, hi}
	var cx, cy, m float64
	for q := 0; q < 4; q++ {
		a, b := bounds[q], bounds[q+1]
		if a == b {
			continue
		}
		qx, qy := x0, y0
		if q&1 != 0 {
			qx = mx
		}
		if q&2 != 0 {
			qy = my
		}
		ch := t.node(a, b, qx, qy, h, depth+1)
		t.cells[id].child[q] = ch
		cc := &t.cells[ch]
		cx += cc.cx * cc.mass
		cy += cc.cy * cc.mass
		m += cc.mass
	}
	c := &t.cells[id]
	c.mass, c.cx, c.cy = m, cx/m, cy/m
	return id
}

// partition moves the points of idx[lo:hi] for which left holds to the
// front and returns where the others start.
func (t *quadtree) partition(lo, hi int32, left func(int32) bool) int32 {
	i, j := lo, hi-1
	for i <= j {
		if left(t.idx[i]) {
			i++
		} else {
			t.idx[i], t.idx[j] = t.idx[j], t.idx[i]
			j--
		}
	}
	return i
}

// forces adds the repulsion on every point to fx, fy (which it first
// zeroes), leaf by leaf: one traversal per leaf builds the list of cells
// far enough from the whole leaf (its side under θ times the distance to
// the leaf's bounding box) and of the points too near to approximate,
// then each point of the leaf sums over those lists. That is Barnes'
// grouping: a few times fewer traversals than one per point, for lists
// a little longer, and a tight loop over contiguous memory.
//
// yield is called every few hundred leaves (about a millisecond), so a
// large layout gives way to other goroutines even on one processor.
func (t *quadtree) forces(theta2 float64, fx, fy []float64, yield func()) {
	for i := range fx {
		fx[i], fy[i] = 0, 0
	}
	leaves := 0
	for li := range t.cells {
		lf := &t.cells[li]
		if !lf.leaf {
			continue
		}
		if leaves++; leaves%256 == 0 {
			yield()
		}
		far, near := t.far[:0], t.near[:0]
		st := append(t.stack[:0], 0)
		for len(st) > 0 {
			ci := st[len(st)-1]
			st = st[:len(st)-1]
			c := &t.cells[ci]
			// Distance from the centre of mass to the leaf's box.
			dx := max(lf.x0-c.cx, 0, c.cx-lf.x1)
			dy := max(lf.y0-c.cy, 0, c.cy-lf.y1)
			if int(ci) != li && c.size*c.size < theta2*(dx*dx+dy*dy) {
				far = append(far, c.cx, c.cy, c.mass)
				continue
			}
			if c.leaf {
				near = append(near, t.idx[c.lo:c.hi]...)
				continue
			}
			for _, ch := range c.child {
				if ch >= 0 {
					st = append(st, ch)
				}
			}
		}
		t.stack, t.far, t.near = st, far, near
		for _, i := range t.idx[lf.lo:lf.hi] {
			x, y := t.pos[2*i], t.pos[2*i+1]
			var sx, sy float64
			for k := 0; k+2 < len(far); k += 3 {
				dx, dy := x-far[k], y-far[k+1]
				f := far[k+2] / (dx*dx + dy*dy)
				sx += dx * f
				sy += dy * f
			}
			for _, j := range near {
				if j == i {
					continue
				}
				dx, dy := x-t.pos[2*j], y-t.pos[2*j+1]
				d2 := dx*dx + dy*dy
				if d2 < 1e-12 {
					dx, dy, d2 = nudge(i, j)
				}
				f := float64(t.w[j]) / d2
				sx += dx * f
				sy += dy * f
			}
			fx[i], fy[i] = sx, sy
		}
	}
}
