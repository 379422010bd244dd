package intake

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
)

// ErrMemoryBusy means the memory budget stayed spent for the whole wait:
// the request is answered 503 overloaded and the client resends later.
var ErrMemoryBusy = errors.New("intake: memory budget spent")

// Budget bounds the bytes of request bodies held for decoding at one
// moment, across every transport (ERRATA_INGEST_MEMORY). A request
// reserves what it is about to hold before it holds it — the body as
// sent, then as it decompresses, in steps — so that many small requests
// that inflate into large ones cannot together exhaust the process.
//
// Open connections are charged to the same budget (ConnCost each, see
// Listener), since a connection stalled mid-request holds memory as surely
// as a body does: without that charge, thousands of stalled connections and
// a budget full of bodies together would exceed what the budget promises.
type Budget struct {
	sem  *semaphore.Weighted
	size int64
	wait time.Duration
	// peeks are the client addresses' turns at decoding a keyless body's
	// first line from memory (Keyless.readSent).
	peeks turns

	// mu guards conns and debt. debt is what connections owe: a connection
	// accepted while the budget is full is charged when bodies give room
	// back (Shrink pays the debt before releasing), so that the bodies that
	// follow find the connections' memory already counted.
	mu      sync.Mutex
	conns   int64
	debt    int64
	hasDebt atomic.Bool
	// accounts is what each account's reservations hold: an organization
	// (ReserveFor) may hold at most half the budget, so that one tenant's
	// bombs, however many projects or keys it spreads them over, leave the
	// other half to everyone else; the requests still unauthenticated
	// (ReserveUnauthenticated) hold at most a sixteenth together.
	accounts map[string]int64
	// preemptibles are the reservations holding room for bytes still to
	// arrive (preempt.go), guarded by mu; awaiting counts them, preempted
	// counts those whose room was taken back.
	preemptibles        map[*preemptible]struct{}
	awaiting, preempted atomic.Int64
}

// unauthenticated is the account of reservations made before a request's
// key is known (CONTRACT 8). No organization id has this form.
const unauthenticated = "\x00unauthenticated"

// addrAccount is the account of one client address's unauthenticated
// reservations (ReserveUnauthenticated), besides the unauthenticated one.
func addrAccount(addr string) string { return "\x00addr:" + addr }

// AddrShare is the most one client address's unauthenticated reservations
// hold together: an eighth of the unauthenticated share, so that one
// address's stalled keyless requests (each holding a decoder and the
// first line read so far) cannot take the whole share and starve every
// other tenant's keyless ingestion (docs/security.md).
func (b *Budget) AddrShare() int64 { return b.size / 16 / 8 }

// ConnCost is what one open connection is charged: about what a connection
// stalled mid-request holds (its goroutine's stack, the server's read and
// write buffers, the request's headers), as measured with 12,000 stalled
// connections (docs/performance.md, "Hostile load").
const ConnCost = 20 << 10

// NewBudget returns a budget of size bytes; a request waits at most wait
// for room, in all.
func NewBudget(size int64, wait time.Duration) *Budget {
	return &Budget{sem: semaphore.NewWeighted(size), size: size, wait: wait, accounts: map[string]int64{}}
}

// share is the most the reservations of account hold together: the whole
// budget for none, half of it for an organization, a sixteenth for the
// requests still unauthenticated.
func (b *Budget) share(account string) int64 {
	switch account {
	case "":
		return b.size
	case unauthenticated:
		return b.size / 16
	}
	return b.size / 2
}

// Unauthenticated is the bytes that reservations of requests whose key is
// not known yet hold together.
func (b *Budget) Unauthenticated() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.accounts[unauthenticated]
}

// Size is the whole budget in bytes.
func (b *Budget) Size() int64 { return b.size }

// Reservation is one request's share of the budget: what it holds, and
// how long it has waited for room. However many steps a request reserves
// in (a body as it arrives and as it inflates, then what decoding it
// needs), together they wait at most the budget's wait, so a request
// refused for memory is refused within that wait (CONTRACT 7: "waits up to
// 1 s, then gets 503 overloaded").
type Reservation struct {
	budget  *Budget
	account string
	// addr is the client address's account (addrAccount) of an
	// unauthenticated reservation, "" otherwise.
	addr   string
	held   int64
	waited time.Duration
}

// Reserve starts an empty reservation on b counted to no account: what
// the process itself reads (tests, tools); requests use ReserveFor or
// ReserveUnauthenticated.
func (b *Budget) Reserve() *Reservation { return &Reservation{budget: b} }

// ReserveFor starts an empty reservation on b for a request of an
// organization's project: together, an organization's reservations hold
// at most half the budget.
func (b *Budget) ReserveFor(org string) *Reservation {
	if org == "" || org == unauthenticated {
		return b.ReserveUnauthenticated("")
	}
	return &Reservation{budget: b, account: org}
}

// ReserveUnauthenticated starts an empty reservation on b for a request
// whose key is not known yet (a Sentry envelope that carries its DSN in
// its header), from the client address addr (ClientIP.Key; "" for none):
// together, such reservations hold at most a sixteenth of the budget
// (CONTRACT 8), so that keyless clients cannot starve the tenants that
// authenticate, and those of one address at most AddrShare, so that one
// client cannot starve the other keyless ones.
func (b *Budget) ReserveUnauthenticated(addr string) *Reservation {
	r := &Reservation{budget: b, account: unauthenticated}
	if addr != "" {
		r.addr = addrAccount(addr)
	}
	return r
}

// Claim moves what r holds from the unauthenticated account to org's, once
// the request's key is known, waiting (within what is left of the budget's
// wait) while that would take org past its share. The bytes stay reserved
// in the budget throughout.
func (r *Reservation) Claim(ctx context.Context, org string) error {
	if r.account != unauthenticated || org == "" {
		return nil
	}
	addr := r.addr
	r.account, r.addr = org, ""
	if err := r.waitForShare(ctx, r.held); err != nil {
		r.account, r.addr = unauthenticated, addr
		return err
	}
	b := r.budget
	b.mu.Lock()
	b.take(unauthenticated, r.held)
	if addr != "" {
		b.take(addr, r.held)
	}
	b.mu.Unlock()
	return nil
}

// take subtracts n from account's total; b.mu is held.
func (b *Budget) take(account string, n int64) {
	if b.accounts[account] -= n; b.accounts[account] <= 0 {
		delete(b.accounts, account)
	}
}

// Held is the bytes the reservation holds.
func (r *Reservation) Held() int64 { return r.held }

// Grow adds n bytes to the reservation, waiting for room no longer than
// what is left of the budget's wait; it returns ErrMemoryBusy past that,
// or ctx's error when ctx ends first. Like Acquire, it takes at most the
// whole budget (an account's reservation at most its share).
func (r *Reservation) Grow(ctx context.Context, n int64) error {
	limit := r.budget.share(r.account)
	if r.addr != "" {
		limit = min(limit, r.budget.AddrShare())
	}
	n = min(n, limit-r.held)
	if n <= 0 {
		return nil
	}
	if r.account != "" {
		if err := r.waitForShare(ctx, n); err != nil {
			return err
		}
	}
	if r.budget.sem.TryAcquire(n) {
		r.held += n
		return nil
	}
	left := r.budget.wait - r.waited
	if left <= 0 {
		r.unshare(n)
		return ErrMemoryBusy
	}
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, left)
	defer cancel()
	stop := r.budget.preemptWhileWaiting(wctx, r)
	err := r.budget.sem.Acquire(wctx, n)
	stop()
	r.waited += time.Since(start)
	if err != nil {
		r.unshare(n)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return ErrMemoryBusy
	}
	r.held += n
	return nil
}

// shareTick is how often a request over its account's share looks again.
const shareTick = 10 * time.Millisecond

// waitForShare counts n more bytes to the reservation's account, waiting
// (within what is left of the budget's wait) while that would take the
// account past its share.
func (r *Reservation) waitForShare(ctx context.Context, n int64) error {
	b := r.budget
	for skip := 0; ; skip-- {
		b.mu.Lock()
		if b.accounts[r.account]+n <= b.share(r.account) && (r.addr == "" || b.accounts[r.addr]+n <= b.AddrShare()) {
			b.accounts[r.account] += n
			if r.addr != "" {
				b.accounts[r.addr] += n
			}
			b.mu.Unlock()
			return nil
		}
		b.mu.Unlock()
		left := b.wait - r.waited
		if left <= 0 {
			return ErrMemoryBusy
		}
		// Take back an idle reservation of the account's (preempt.go),
		// then give its owner a few ticks to release it.
		if skip <= 0 && b.preempt(r, r.account) {
			skip = preemptPause
		}
		d := min(shareTick, left)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		r.waited += d
	}
}

// unshare takes back n bytes counted to the account by waitForShare (when
// the semaphore then refused them, or as they are given back).
func (r *Reservation) unshare(n int64) {
	if r.account == "" {
		return
	}
	b := r.budget
	b.mu.Lock()
	b.take(r.account, n)
	if r.addr != "" {
		b.take(r.addr, n)
	}
	b.mu.Unlock()
}

// Shrink gives back n of the bytes held (all of them at most).
func (r *Reservation) Shrink(n int64) {
	n = min(n, r.held)
	if n > 0 {
		r.held -= n
		r.unshare(n)
		r.budget.release(n)
	}
}

// release gives n bytes back to the budget, paying the connections' debt
// first.
func (b *Budget) release(n int64) {
	if b.hasDebt.Load() {
		b.mu.Lock()
		pay := min(b.debt, n)
		b.debt -= pay
		b.hasDebt.Store(b.debt > 0)
		b.mu.Unlock()
		n -= pay
	}
	if n > 0 {
		b.sem.Release(n)
	}
}

// holdConn charges an accepted connection, unless connections already hold
// three quarters of the budget: beyond that they go uncharged, so that idle
// keep-alive connections can never leave no room for bodies. It reports
// whether the connection was charged.
func (b *Budget) holdConn() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if (b.conns+1)*ConnCost > b.size/4*3 {
		return false
	}
	b.conns++
	if !b.sem.TryAcquire(ConnCost) {
		b.debt += ConnCost
		b.hasDebt.Store(true)
	}
	return true
}

// releaseConn gives back a charged connection's share, cancelling what is
// still owed first.
func (b *Budget) releaseConn() {
	b.mu.Lock()
	b.conns--
	pay := min(b.debt, ConnCost)
	b.debt -= pay
	b.hasDebt.Store(b.debt > 0)
	b.mu.Unlock()
	if ConnCost-pay > 0 {
		b.sem.Release(ConnCost - pay)
	}
}

// Connections reports how many open connections are charged to the budget.
func (b *Budget) Connections() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.conns
}

// Listener charges every connection ln accepts to the budget until it is
// closed.
func (b *Budget) Listener(ln net.Listener) net.Listener {
	return &chargedListener{Listener: ln, budget: b}
}

type chargedListener struct {
	net.Listener
	budget *Budget
}

func (l *chargedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil || !l.budget.holdConn() {
		return c, err
	}
	return &chargedConn{Conn: c, budget: l.budget}, nil
}

type chargedConn struct {
	net.Conn
	budget *Budget
	once   sync.Once
}

func (c *chargedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.budget.releaseConn)
	return err
}

// Release gives back everything the reservation holds.
func (r *Reservation) Release() { r.Shrink(r.held) }
