package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"sync"
	"time"
)

// SessionCookie names the web app's session cookie. The __Host- prefix
// makes browsers insist on Secure, Path=/ and no Domain.
const SessionCookie = "__Host-gno_session"

// maxSessions bounds the sessions kept in memory.
const maxSessions = 10_000

// session is one signed-in browser. It holds the token's id, never its
// secret, and ends with the token or after the session lifetime.
type session struct {
	tokenID string
	expires time.Time
}

// sessions are kept in memory only (a restart signs everyone out), keyed
// by the SHA-256 of the cookie value so a lookup's timing says nothing
// about live session ids.
type sessions struct {
	mu sync.Mutex
	m  map[[32]byte]session
}

func newSessions() *sessions { return &sessions{m: map[[32]byte]session{}} }

var errTooManySessions = errors.New("too many signed-in sessions; try again later")

// create starts a session for tok lasting ttl (or until tok expires).
func (s *sessions) create(tok Token, ttl time.Duration, now time.Time) (string, time.Time, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", time.Time{}, err
	}
	sid := base64.RawURLEncoding.EncodeToString(b[:])
	exp := now.Add(ttl)
	if !tok.Expires.IsZero() && tok.Expires.Before(exp) {
		exp = tok.Expires
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.m) >= maxSessions {
		for k, v := range s.m {
			if !now.Before(v.expires) {
				delete(s.m, k)
			}
		}
		if len(s.m) >= maxSessions {
			return "", time.Time{}, errTooManySessions
		}
	}
	s.m[sha256.Sum256([]byte(sid))] = session{tokenID: tok.ID, expires: exp}
	return sid, exp, nil
}

// get returns the live session of a cookie value.
func (s *sessions) get(sid string, now time.Time) (session, bool) {
	if sid == "" || len(sid) > 128 {
		return session{}, false
	}
	k := sha256.Sum256([]byte(sid))
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[k]
	if ok && !now.Before(v.expires) {
		delete(s.m, k)
		return session{}, false
	}
	return v, ok
}

// end forgets a session.
func (s *sessions) end(sid string) {
	k := sha256.Sum256([]byte(sid))
	s.mu.Lock()
	delete(s.m, k)
	s.mu.Unlock()
}
