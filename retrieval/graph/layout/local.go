package layout

// Around is the neighbourhood of document focus: the documents within
// depth links of it (both directions), nearest first and at most max of
// them (focus first), their links among themselves, the unresolved links
// of those closer than depth, and their ranks. It is what a note's local
// graph draws: laid out on its own, it costs milliseconds where the whole
// graph may take seconds. An invalid focus gives nil.
func Around(in *Input, focus, depth, max int) *Input {
	n := len(in.Docs)
	if focus < 0 || focus >= n {
		return nil
	}
	if max < 1 {
		max = 1
	}
	start := make([]int32, n+1)
	for _, l := range in.Links {
		if ok(l, n) {
			start[l.Src+1]++
			start[l.Dst+1]++
		}
	}
	for i := 0; i < n; i++ {
		start[i+1] += start[i]
	}
	adj := make([]int32, start[n])
	fill := append([]int32(nil), start[:n]...)
	for _, l := range in.Links {
		if ok(l, n) {
			adj[fill[l.Src]] = l.Dst
			fill[l.Src]++
			adj[fill[l.Dst]] = l.Src
			fill[l.Dst]++
		}
	}
	dist := map[int32]int{int32(focus): 0}
	order := []int32{int32(focus)}
	for qi := 0; qi < len(order) && len(order) < max; qi++ {
		u := order[qi]
		if dist[u] >= depth {
			continue
		}
		for _, v := range adj[start[u]:start[u+1]] {
			if _, seen := dist[v]; !seen {
				dist[v] = dist[u] + 1
				order = append(order, v)
				if len(order) == max {
					break
				}
			}
		}
	}
	local := make(map[int32]int32, len(order))
	out := &Input{Docs: make([]Doc, len(order))}
	if len(in.Rank) == n {
		out.Rank = make([]float64, len(order))
	}
	for i, g := range order {
		local[g] = int32(i)
		out.Docs[i] = in.Docs[g]
		if out.Rank != nil {
			out.Rank[i] = in.Rank[g]
		}
	}
	for _, l := range in.Links {
		a, okA := local[l.Src]
		b, okB := local[l.Dst]
		if okA && okB && ok(l, n) {
			out.Links = append(out.Links, Link{Src: a, Dst: b})
		}
	}
	for _, u := range in.Unresolved {
		if a, ok := local[u.Src]; ok && dist[u.Src] < depth {
			out.Unresolved = append(out.Unresolved, Unresolved{Src: a, Target: u.Target})
		}
	}
	return out
}

// ok reports whether l joins two different documents of n.
func ok(l Link, n int) bool {
	return l.Src >= 0 && l.Dst >= 0 && int(l.Src) < n && int(l.Dst) < n && l.Src != l.Dst
}
