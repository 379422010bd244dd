package loadgen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// A template is one kind of event: a message with fixed words and variable
// slots, raised by one service, with a fixed call stack in that service's
// language. Grouping should put all events of a template in one group even
// though their ids, durations and addresses differ.
type template struct {
	service int
	lang    lang
	segs    []seg
	exc     string // exception class or panic kind
	frames  []frame
	// Prepared by prepareStack: the fixed text around the variable parts.
	frameText string
	goFrames  [][2]string
}

// seg is a literal followed by a variable slot (0 for none).
type seg struct {
	lit  string
	slot byte
}

type frame struct {
	pkg, typ, fn, file string
	line               int
}

// Message patterns: %x is a fixed word chosen once per template, {x} a part
// that varies on every event.
var patterns = []string{
	"failed to %op %ent {id}: %cause",
	"%ent {id} not found for user {user}",
	"timeout after {dur} waiting for %dep at {ip}",
	"connection to %dep at {ip} refused after {dur}",
	"user {user} exceeded %ent quota ({n} of {n})",
	"slow query on %table took {dur} (rows={n})",
	"request {method} {path} completed in {dur}",
	"retrying %op of %ent {id} (attempt {n}): %cause",
	"cache miss for %ent {id}, loaded from %dep in {dur}",
	"invalid %ent payload from {ip}: %cause",
	"deadlock detected while trying to %op %ent {id}",
	"%dep responded {status} after {dur} for %ent {id}",
	"processed {n} %ent records in {dur}",
	"lock on %ent {id} held for {dur} by worker {n}",
	"upstream %dep unhealthy: {n} consecutive failures from {ip}",
	"scheduled job %job finished in {dur} ({n} items)",
}

var words = map[string][]string{
	"op": {"create", "update", "delete", "charge", "refund", "reserve", "ship", "sync",
		"index", "validate", "publish", "load", "archive", "notify"},
	"ent": {"order", "invoice", "payment", "cart", "session", "user", "product", "shipment",
		"token", "webhook", "report", "subscription", "coupon", "address"},
	"cause": {"context deadline exceeded", "unexpected EOF", "connection reset by peer",
		"invalid signature", "unexpected status 500", "no rows in result set", "broken pipe",
		"duplicate key value violates unique constraint", "permission denied", "i/o timeout"},
	"dep":   {"postgres", "redis", "kafka", "stripe-api", "s3", "elasticsearch", "smtp-relay", "vault"},
	"table": {"orders", "line_items", "users", "events", "payments", "audit_log", "sessions"},
	"job":   {"reindex", "nightly-export", "cleanup", "digest", "reconcile", "rollup"},
}

var regions = []string{"eu-west-1", "us-east-1", "us-west-2", "ap-southeast-1", "eu-central-1"}

func buildTemplates(r *rand.Rand, n, nsvc int, svcs []service) []template {
	seen := make(map[string]bool, n)
	ts := make([]template, 0, n)
	for i := range n {
		var text string
		for try := 0; ; try++ {
			text = fillWords(r, patterns[r.IntN(len(patterns))])
			if !seen[text] {
				break
			}
			if try == 20 { // the space is exhausted: make it distinct
				text += " [E" + strconv.Itoa(1000+i) + "]"
				break
			}
		}
		seen[text] = true
		s := i % nsvc
		ts = append(ts, template{service: s, lang: svcs[s].lang, segs: parse(text)})
		t := &ts[len(ts)-1]
		t.exc = exceptions[t.lang][r.IntN(len(exceptions[t.lang]))]
		for range 5 + r.IntN(4) {
			t.frames = append(t.frames, frame{
				pkg: svcs[s].name, typ: typeNames[r.IntN(len(typeNames))],
				fn: fnNames[r.IntN(len(fnNames))], file: fileNames[r.IntN(len(fileNames))],
				line: 20 + r.IntN(400),
			})
		}
		t.prepareStack()
	}
	return ts
}

func fillWords(r *rand.Rand, p string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(p, '%')
		if i < 0 {
			b.WriteString(p)
			return b.String()
		}
		b.WriteString(p[:i])
		j := i + 1
		for j < len(p) && 'a' <= p[j] && p[j] <= 'z' {
			j++
		}
		w := words[p[i+1:j]]
		b.WriteString(w[r.IntN(len(w))])
		p = p[j:]
	}
}

// parse splits text at its {slot}s.
func parse(text string) []seg {
	var segs []seg
	for {
		i := strings.IndexByte(text, '{')
		if i < 0 {
			return append(segs, seg{lit: text})
		}
		j := strings.IndexByte(text[i:], '}') + i
		segs = append(segs, seg{lit: text[:i], slot: slots[text[i+1:j]]})
		text = text[j+1:]
	}
}

var slots = map[string]byte{"id": 'i', "dur": 'd', "ip": 'p', "n": 'n', "user": 'u',
	"status": 'S', "method": 'M', "path": 'a'}

var pathRoots = []string{"orders", "users", "carts", "invoices", "products", "sessions"}

func (t *template) render(r *rand.Rand) string {
	var b strings.Builder
	b.Grow(96)
	for _, s := range t.segs {
		b.WriteString(s.lit)
		switch s.slot {
		case 'i': // id
			if r.IntN(2) == 0 {
				b.WriteString(hex(r, 8) + "-" + hex(r, 4) + "-" + hex(r, 4))
			} else {
				b.WriteString(strconv.Itoa(100000 + r.IntN(9000000)))
			}
		case 'd': // duration
			if r.IntN(3) == 0 {
				fmt.Fprintf(&b, "%.3fs", 1+r.Float64()*29)
			} else {
				b.WriteString(strconv.Itoa(1+r.IntN(999)) + "ms")
			}
		case 'p': // ip:port
			fmt.Fprintf(&b, "10.%d.%d.%d:%d", r.IntN(256), r.IntN(256), 1+r.IntN(254), 1024+r.IntN(60000))
		case 'n':
			b.WriteString(strconv.Itoa(r.IntN(5000)))
		case 'u':
			b.WriteString("usr_" + strconv.Itoa(10000+r.IntN(90000)))
		case 'S':
			b.WriteString(strconv.Itoa(statuses[r.IntN(len(statuses))]))
		case 'M':
			b.WriteString(methods[r.IntN(len(methods))])
		case 'a': // path
			fmt.Fprintf(&b, "/api/v1/%s/%d", pathRoots[r.IntN(len(pathRoots))], r.IntN(1000000))
		}
	}
	return b.String()
}
