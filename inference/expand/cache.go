package expand

import (
	"container/list"
	"sync"

	"github.com/gnosearch/gno/inference"
)

// Cache is a bounded LRU of expansions keyed by (model, query):
// agents repeat and refine queries, and an LLM call costs far more than
// the rest of a query. It is safe for concurrent use; the openai package
// uses it too.
type Cache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front = most recent; values are *cacheEntry
	items map[cacheKey]*list.Element
}

type cacheKey struct{ model, query string }

type cacheEntry struct {
	key cacheKey
	exp inference.Expansion
}

// NewCache holds up to max expansions; max <= 0 gives a cache
// that stores nothing.
func NewCache(max int) *Cache {
	return &Cache{max: max, order: list.New(), items: map[cacheKey]*list.Element{}}
}

// Get returns a copy of the cached expansion, so callers may modify it.
func (c *Cache) Get(model, query string) (*inference.Expansion, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[cacheKey{model, query}]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return copyExpansion(&el.Value.(*cacheEntry).exp), true
}

// Put stores a copy of exp, evicting the least recently used entry when full.
func (c *Cache) Put(model, query string, exp *inference.Expansion) {
	if c == nil || c.max <= 0 || exp == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := cacheKey{model, query}
	if el, ok := c.items[k]; ok {
		el.Value.(*cacheEntry).exp = *copyExpansion(exp)
		c.order.MoveToFront(el)
		return
	}
	c.items[k] = c.order.PushFront(&cacheEntry{key: k, exp: *copyExpansion(exp)})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*cacheEntry).key)
	}
}

// Len is the number of cached expansions.
func (c *Cache) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

func copyExpansion(e *inference.Expansion) *inference.Expansion {
	return &inference.Expansion{Keywords: append([]string{}, e.Keywords...), Passage: e.Passage}
}
