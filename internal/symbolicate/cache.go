package symbolicate

import (
	"container/list"
	"strings"
	"sync"
)

// parsedMap is a parsed source map with its original sources split into
// lines (for context), and its cost in bytes.
type parsedMap struct {
	c     consumer
	lines map[sourceKey][]string
	cost  int64

	mu    sync.Mutex
	funcs map[funcKey]string // enclosing functions found, by source and position
}

type funcKey struct {
	source    sourceKey
	line, col int
}

// function is enclosingFunction of a source's line, remembered: the frames
// of one bug come back with every event.
func (m *parsedMap) function(source sourceKey, line, col int) string {
	m.mu.Lock()
	fn, ok := m.funcs[funcKey{source, line, col}]
	m.mu.Unlock()
	if ok {
		return fn
	}
	fn = enclosingFunction(m.sourceLines(source), line, col) // sourceLines locks m.mu itself
	m.mu.Lock()
	if m.funcs == nil {
		m.funcs = map[funcKey]string{}
	}
	if len(m.funcs) < 100_000 {
		m.funcs[funcKey{source, line, col}] = fn
	}
	m.mu.Unlock()
	return fn
}

// sourceLines is a source's original text (sourcesContent) split into
// lines, split on first use.
func (m *parsedMap) sourceLines(source sourceKey) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ls, ok := m.lines[source]; ok {
		return ls
	}
	var ls []string
	if text := content(m.c, source); text != "" {
		ls = strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	}
	if m.lines == nil {
		m.lines = map[sourceKey][]string{}
	}
	m.lines[source] = ls
	return ls
}

// mapCache keeps parsed maps by artifact id within a byte budget, least
// recently used first out.
type mapCache struct {
	mu     sync.Mutex
	budget int64
	used   int64
	order  *list.List // front: most recently used
	byID   map[string]*list.Element
}

type cacheEntry struct {
	id string
	m  *parsedMap
}

func newMapCache(budget int64) *mapCache {
	return &mapCache{budget: budget, order: list.New(), byID: map[string]*list.Element{}}
}

func (c *mapCache) get(id string) *parsedMap {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byID[id]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*cacheEntry).m
	}
	return nil
}

// put keeps m unless it alone is over the budget, dropping the least
// recently used maps to make room.
func (c *mapCache) put(id string, m *parsedMap) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byID[id]; ok || m.cost > c.budget {
		return
	}
	for c.used+m.cost > c.budget {
		el := c.order.Back()
		e := el.Value.(*cacheEntry)
		c.order.Remove(el)
		delete(c.byID, e.id)
		c.used -= e.m.cost
	}
	c.byID[id] = c.order.PushFront(&cacheEntry{id, m})
	c.used += m.cost
}

// size is the bytes the cache holds, for tests and metrics.
func (c *mapCache) size() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}
