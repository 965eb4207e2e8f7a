package layout

import (
	"math"
	"time"
)

// The forces of ForceAtlas2 (Jacomy et al. 2014): every node carries a
// charge of its degree + 1 and repels every other with charge·charge/d;
// links pull with springs of rest length zero (force d, times the links
// a coarse edge stands for). The degree charge is what separates the
// clusters around hubs; the spring-electrical model of Hu's paper (d²/K
// pulls, K²/d repels, unit charges) gives even edge lengths instead and,
// on notes, a hairball: on the generated vault a third of a node's
// nearest neighbours share its folder with it against three in five with
// these forces (bench/RESULTS.md). The step control is Hu's: every node
// moves step along its force; the step shrinks after an iteration that
// raised the energy and grows after five that lowered it.
const (
	// repulsion scales the charges so that two linked leaves rest about
	// one unit apart.
	repulsion = 1.0
	coolRate  = 0.9
	// The coarsest level starts from random positions with a large step
	// and many iterations (it is tiny); finer levels start from their
	// parent's positions with refineStep. Steps are in units of the
	// level's mean edge length: these forces set no natural length.
	coarsestIters = 300
	refineStep    = 0.15
	// Levels between the coarsest and the finest get this many
	// iterations more than the finest.
	extraIters = 5
	// tolerance: a level is done when the step falls below it (times
	// the mean edge length, as refineStep).
	tolerance = 0.01
)

// forceState holds the buffers reused across iterations and levels.
type forceState struct {
	tree   quadtree
	fx, fy []float64
}

// refine runs at most iters force iterations on g from pos (in place),
// starting with the given step. It stops early on convergence, returns
// ctx's error when ctx ends, and stops (setting r.truncated) at the
// deadline.
func (r *run) refine(g *csr, pos []float64, iters int, step, tol float64) error {
	n := g.n
	f := &r.force
	if cap(f.fx) < n {
		f.fx, f.fy = make([]float64, n), make([]float64, n)
	}
	fx, fy := f.fx[:n], f.fy[:n]
	energy, progress := math.Inf(1), 0
	theta2 := r.o.Theta * r.o.Theta
	for it := 0; it < iters; it++ {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		if r.truncated || time.Now().After(r.deadline) {
			r.truncated = true
			return nil
		}
		// Let other goroutines (HTTP handlers) run between iterations.
		r.yield()
		f.tree.build(pos, g.mass)
		if r.o.Exact {
			exactRepulsion(pos, g.mass, fx, fy)
		} else {
			f.tree.forces(theta2, fx, fy, r.yield)
		}
		for i := 0; i < n; i++ {
			ax, ay := 0.0, 0.0
			xi, yi := pos[2*i], pos[2*i+1]
			for k := g.off[i]; k < g.off[i+1]; k++ {
				j := g.adj[k]
				w := float64(g.ew[k])
				ax += (pos[2*j] - xi) * w
				ay += (pos[2*j+1] - yi) * w
			}
			m := float64(g.mass[i]) * repulsion
			fx[i] = fx[i]*m + ax
			fy[i] = fy[i]*m + ay
		}
		e0 := energy
		energy = 0
		for i := 0; i < n; i++ {
			m := math.Sqrt(fx[i]*fx[i] + fy[i]*fy[i])
			if m > 0 {
				pos[2*i] += step * fx[i] / m
				pos[2*i+1] += step * fy[i] / m
			}
			energy += m * m
		}
		r.iterations++
		if energy < e0 {
			if progress++; progress >= 5 {
				progress = 0
				step /= coolRate
			}
		} else {
			progress = 0
			step *= coolRate
		}
		if step < tol {
			break
		}
	}
	return nil
}

// exactRepulsion is the O(n²) sum, for comparisons.
func exactRepulsion(pos []float64, w []float32, fx, fy []float64) {
	n := len(w)
	for i := 0; i < n; i++ {
		fx[i], fy[i] = 0, 0
	}
	for i := 0; i < n; i++ {
		xi, yi := pos[2*i], pos[2*i+1]
		for j := i + 1; j < n; j++ {
			dx, dy := xi-pos[2*j], yi-pos[2*j+1]
			d2 := dx*dx + dy*dy
			if d2 < 1e-12 {
				dx, dy, d2 = nudge(int32(i), int32(j))
			}
			fi, fj := float64(w[j])/d2, float64(w[i])/d2
			fx[i] += dx * fi
			fy[i] += dy * fi
			fx[j] -= dx * fj
			fy[j] -= dy * fj
		}
	}
}

// nudge is the direction used between two coincident points: fixed by
// their ids, so the result stays deterministic.
func nudge(i, j int32) (dx, dy, d2 float64) {
	a := float64((i*7919+j*104729)%360) * math.Pi / 180
	dx, dy = 1e-3*math.Cos(a), 1e-3*math.Sin(a)
	if i > j {
		dx, dy = -dx, -dy
	}
	return dx, dy, 1e-6
}

// yield calls Options.Yield; the time it takes is not the layout's, so
// it moves the deadline (a layout made to wait is not cut short for it).
func (r *run) yield() {
	t := time.Now()
	r.o.Yield()
	r.deadline = r.deadline.Add(time.Since(t))
}
