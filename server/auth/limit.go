package auth

import (
	"math"
	"net"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxTracked bounds the clients the limiter remembers; past it, new
// clients share one bucket (an attacker with many addresses slows down
// only itself and other strangers, never a client already known).
const maxTracked = 10_000

// failLimiter counts failed attempts per client in token buckets: each
// failure takes a token, a client without one is refused until one
// refills. Successes take nothing.
type failLimiter struct {
	every rate.Limit
	burst int

	mu        sync.Mutex
	clients   map[string]*rate.Limiter
	overflow  *rate.Limiter
	lastPrune time.Time
}

func newFailLimiter(perMinute int) *failLimiter {
	r := rate.Limit(float64(perMinute) / 60)
	return &failLimiter{every: r, burst: perMinute, clients: map[string]*rate.Limiter{}, overflow: rate.NewLimiter(r, perMinute)}
}

// wait returns how long the client must wait before its next attempt; 0
// means it may try now.
func (l *failLimiter) wait(key string, now time.Time) time.Duration {
	l.mu.Lock()
	lim := l.clients[key]
	if lim == nil && len(l.clients) >= maxTracked {
		lim = l.overflow
	}
	l.mu.Unlock()
	if lim == nil {
		return 0
	}
	tokens := lim.TokensAt(now)
	if tokens >= 1 {
		return 0
	}
	return time.Duration(math.Ceil((1 - tokens) / float64(l.every) * float64(time.Second)))
}

// fail records a failed attempt.
func (l *failLimiter) fail(key string, now time.Time) {
	l.mu.Lock()
	if now.Sub(l.lastPrune) > time.Minute || len(l.clients) >= maxTracked {
		l.prune(now)
	}
	lim := l.clients[key]
	if lim == nil {
		if len(l.clients) >= maxTracked {
			lim = l.overflow
		} else {
			lim = rate.NewLimiter(l.every, l.burst)
			l.clients[key] = lim
		}
	}
	l.mu.Unlock()
	lim.AllowN(now, 1)
}

// prune forgets clients whose bucket has refilled: they are back to
// where a new client starts. l.mu is held.
func (l *failLimiter) prune(now time.Time) {
	l.lastPrune = now
	for k, lim := range l.clients {
		if lim.TokensAt(now) >= float64(l.burst) {
			delete(l.clients, k)
		}
	}
}

// clientKey names the client of a request by its address: the IP, or an
// IPv6 /64 (one host usually holds a whole /64). Proxy headers
// (X-Forwarded-For) are not trusted: anyone can send them.
func clientKey(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}
