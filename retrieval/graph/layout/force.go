package layout

import (
	"math"
	"runtime"
	"time"
)

// The spring-electrical model of Hu (2005): attraction d²/K along each
// edge (times its weight), repulsion C·K²/d between every pair.
const (
	springK  = 1.0
	repulseC = 0.2
	// coolRate shrinks the step after an iteration that raised the
	// energy; five improving iterations in a row grow it back.
	coolRate = 0.9
	// tolerance: a level is done when the step falls below it.
	tolerance = 0.01 * springK
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
func (r *run) refine(g *csr, pos []float64, iters int, step float64, finest bool) error {
	n := g.n
	f := &r.force
	if cap(f.fx) < n {
		f.fx, f.fy = make([]float64, n), make([]float64, n)
	}
	fx, fy := f.fx[:n], f.fy[:n]
	energy, progress := math.Inf(1), 0
	theta2 := r.o.Theta * r.o.Theta
	if finest && fineTheta > 0 {
		theta2 = fineTheta * fineTheta
	}
	const ck2 = repulseC * springK * springK
	for it := 0; it < iters; it++ {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		if r.truncated || time.Now().After(r.deadline) {
			r.truncated = true
			return nil
		}
		// Let other goroutines (HTTP handlers) run between iterations.
		runtime.Gosched()
		mass := g.nw
		if !weighted {
			mass = ones(n)
		}
		if r.o.Exact {
			exactRepulsion(pos, mass, fx, fy)
		} else {
			f.tree.build(pos, mass)
			for i := 0; i < n; i++ {
				fx[i], fy[i] = f.tree.force(int32(i), pos[2*i], pos[2*i+1], theta2)
			}
		}
		for i := 0; i < n; i++ {
			ax, ay := 0.0, 0.0
			xi, yi := pos[2*i], pos[2*i+1]
			for k := g.off[i]; k < g.off[i+1]; k++ {
				j := g.adj[k]
				dx, dy := pos[2*j]-xi, pos[2*j+1]-yi
				d := math.Sqrt(dx*dx + dy*dy)
				w := float64(g.ew[k]) * d / springK
				ax += dx * w
				ay += dy * w
			}
			fx[i] = fx[i]*ck2 + ax
			fy[i] = fy[i]*ck2 + ay
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
		lastWork += n
		if energy < e0 {
			if progress++; progress >= 5 {
				progress = 0
				step /= coolRate
			}
		} else {
			progress = 0
			step *= coolRate
		}
		if step < tolerance {
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

var weighted = false

var onesBuf []float32

func ones(n int) []float32 {
	for len(onesBuf) < n {
		onesBuf = append(onesBuf, 1)
	}
	return onesBuf[:n]
}

var fineTheta = 0.0
var lastWork int
