package store

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// keyCache remembers API keys with their projects for the ingestion routes,
// which read one with every request (a Sentry SDK sends one event a
// request: the read was an eighth of the server's CPU). It is on only on
// SQLite, where one process owns the database (docs/decisions.md), so that
// every change to a key or a project goes through this process: such a
// change moves the generation on once it commits, and an entry read under
// an earlier generation is not used. A revoked key is refused by the next
// request after the revocation's answer (CONTRACT 2). On PostgreSQL, where
// other processes change keys, there is no cache.
type keyCache struct {
	on  bool
	gen atomic.Uint64
	mu  sync.Mutex
	m   map[string]keyEntry
}

type keyEntry struct {
	k   APIKey
	p   Project
	gen uint64
	at  time.Time
}

// Bounds of the cache: an entry is read again after keyCacheTTL whatever
// happens, and the cache is emptied when it holds keyCacheMax keys (only
// keys that authenticate are kept: unknown ones cannot fill it).
const (
	keyCacheTTL = 10 * time.Second
	keyCacheMax = 4096
)

func (kc *keyCache) enable() {
	kc.on, kc.m = true, map[string]keyEntry{}
}

// bump makes every entry stale.
func (kc *keyCache) bump() { kc.gen.Add(1) }

// APIKeyWithProject is Conn.APIKeyWithProject on the read pool, through
// the cache where there is one.
func (db *DB) APIKeyWithProject(ctx context.Context, id string) (APIKey, Project, error) {
	kc := &db.keys
	if !kc.on {
		return db.Read().APIKeyWithProject(ctx, id)
	}
	gen := kc.gen.Load() // before the read: a change committed after it makes the entry stale
	kc.mu.Lock()
	e, ok := kc.m[id]
	kc.mu.Unlock()
	if ok && e.gen == gen && time.Since(e.at) < keyCacheTTL {
		return e.k, e.p, nil
	}
	k, p, err := db.Read().APIKeyWithProject(ctx, id)
	if err != nil {
		return k, p, err
	}
	kc.mu.Lock()
	if len(kc.m) >= keyCacheMax {
		clear(kc.m)
	}
	kc.m[id] = keyEntry{k: k, p: p, gen: gen, at: time.Now()}
	kc.mu.Unlock()
	return k, p, nil
}

// TouchAPIKey records a use of the key, and in the cached key too, so that
// the next request does not record it again.
func (db *DB) TouchAPIKey(ctx context.Context, id string, at time.Time) error {
	if err := db.Write().TouchAPIKey(ctx, id, at); err != nil {
		return err
	}
	if kc := &db.keys; kc.on {
		kc.mu.Lock()
		if e, ok := kc.m[id]; ok {
			t := at
			e.k.LastUsedAt = &t
			kc.m[id] = e
		}
		kc.mu.Unlock()
	}
	return nil
}

// keysChanged makes the cached keys stale once c's change commits: at
// once outside a transaction, after the commit inside one.
func (c *Conn) keysChanged() {
	switch {
	case c.keys == nil || !c.keys.on:
	case c.after != nil:
		*c.after = append(*c.after, c.keys.bump)
	default:
		c.keys.bump()
	}
}
