// Package loadgen generates realistic ingestion load, sends it to Errata's
// POST /v1/ingest (or, as newline-delimited JSON, to another log system for
// comparison) and reports throughput, latency and refusals.
//
// Generation is deterministic: batch i of a Generator depends only on the
// seed, the options and i, so any number of workers can build batches in
// parallel and a run with the same seed sends the same events whatever its
// concurrency.
package loadgen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"
)

// Options shape the generated events.
type Options struct {
	Seed       uint64
	BatchSize  int     // events per batch, 1 to 1000
	Services   int     // distinct services sending batches
	Templates  int     // distinct message templates
	ErrorRatio float64 // share of events at level error or fatal
	StackRatio float64 // share of events carrying a stack trace
	// Start is the time Batch stamps every batch at (its last event; the
	// others in the second or two before); the zero value means the time
	// NewGenerator is called. Fix it for byte-identical output. A run
	// stamps each batch at the time it sends it instead (BatchAt).
	Start time.Time
}

// DefaultOptions are the options of `errata loadgen` without flags.
func DefaultOptions() Options {
	return Options{Seed: 1, BatchSize: 1000, Services: 5, Templates: 200, ErrorRatio: 0.01, StackRatio: 0.30}
}

// Validate reports the first option out of range.
func (o Options) Validate() error {
	switch {
	case o.BatchSize < 1 || o.BatchSize > 1000:
		return fmt.Errorf("--batch-size must be 1 to 1000, got %d", o.BatchSize)
	case o.Services < 1 || o.Services > 10000:
		return fmt.Errorf("--services must be 1 to 10000, got %d", o.Services)
	case o.Templates < 1 || o.Templates > 1000000:
		return fmt.Errorf("--templates must be 1 to 1000000, got %d", o.Templates)
	case o.ErrorRatio < 0 || o.ErrorRatio > 1:
		return fmt.Errorf("--error-ratio must be between 0 and 1, got %g", o.ErrorRatio)
	case o.StackRatio < 0 || o.StackRatio > 1:
		return fmt.Errorf("--stack-ratio must be between 0 and 1, got %g", o.StackRatio)
	}
	return nil
}

// Attr is one event attribute. Num marks Value as a JSON number literal.
type Attr struct {
	Key   string
	Value string
	Num   bool
}

// Event is one generated event, in the shape of the spec's events[] item.
type Event struct {
	Message string
	Level   string
	// Timestamp is in the fixed-width form 2006-01-02T15:04:05.000Z, so
	// that a prebuilt body can be stamped again in place; "" leaves the
	// field out and the server stamps the time of receipt.
	Timestamp  string
	StackTrace string
	TraceID    string
	SpanID     string
	Attributes []Attr
	// Template is the index of the template Message was made from. It is
	// not sent; tests and reports use it to know the true number of groups.
	Template int
	// ago is how long before the batch's time the event happened.
	ago time.Duration
}

// Batch is one request's worth of events from one service.
type Batch struct {
	Index       int
	Service     string
	Environment string
	Release     string
	// At is the time of the batch's last event: when it is sent.
	At     time.Time
	Events []Event
}

// Generator builds batches. It is safe for concurrent use: it holds only
// read-only tables after NewGenerator.
type Generator struct {
	opts      Options
	templates []template
	services  []service
	// byService lists the templates each service raises.
	byService [][]int
	// stackOther is the stack-trace probability of events below error, so
	// that the overall share is StackRatio while every error has one.
	stackOther float64
}

type service struct {
	name, env, release, region string
	lang                       lang
	hosts, loggers             []string // attribute values, made once
}

var serviceNames = []string{"checkout", "payments", "inventory", "auth", "search",
	"notifications", "shipping", "catalog", "accounts", "gateway"}

// NewGenerator validates o and builds the template and service tables.
func NewGenerator(o Options) (*Generator, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Start.IsZero() {
		o.Start = time.Now().UTC().Truncate(time.Millisecond)
	}
	g := &Generator{opts: o}
	r := rand.New(rand.NewPCG(o.Seed, 0x7e3a1c))
	for i := range o.Services {
		name := serviceNames[i%len(serviceNames)]
		if i >= len(serviceNames) {
			name = fmt.Sprintf("%s-%d", name, i/len(serviceNames))
		}
		env := "production"
		if i%4 == 3 {
			env = "staging"
		}
		g.services = append(g.services, service{
			name: name, env: env, lang: lang(i % int(numLangs)),
			release: fmt.Sprintf("v%d.%d.%d+%07x", 1+i%3, r.IntN(40), r.IntN(20), r.Uint32()>>4),
			region:  regions[i%len(regions)],
		})
		svc := &g.services[i]
		for h := range 12 {
			svc.hosts = append(svc.hosts, name+"-"+strconv.Itoa(h))
		}
		for _, f := range fileNames {
			svc.loggers = append(svc.loggers, name+"."+f)
		}
	}
	g.templates = buildTemplates(r, o.Templates, o.Services, g.services)
	g.byService = make([][]int, o.Services)
	for i, t := range g.templates {
		g.byService[t.service] = append(g.byService[t.service], i)
	}
	if o.ErrorRatio < 1 {
		g.stackOther = max(0, (o.StackRatio-o.ErrorRatio)/(1-o.ErrorRatio))
	}
	return g, nil
}

// Options returns the options the generator was built with.
func (g *Generator) Options() Options { return g.opts }

// Batch returns batch i stamped at the generator's Start. The same
// generator options and i give the same batch.
func (g *Generator) Batch(i int) Batch { return g.BatchAt(i, g.opts.Start) }

// BatchAt returns batch i stamped as collected up to at: its last event
// happened at at, the others a few milliseconds apart before it (a second
// or so for 1,000 events), as a client sends what it gathered. Everything
// but the timestamps depends only on the options and i.
func (g *Generator) BatchAt(i int, at time.Time) Batch {
	r := rand.New(rand.NewPCG(g.opts.Seed, uint64(i)+1<<32))
	s := r.IntN(len(g.services))
	svc := g.services[s]
	b := Batch{Index: i, Service: svc.name, Environment: svc.env, Release: svc.release, At: at,
		Events: make([]Event, g.opts.BatchSize)}
	// Events a few ms apart: each event's offset from the first is drawn
	// with it, and turned into how long before at it happened once the
	// batch's span is known.
	var span time.Duration
	for j := range b.Events {
		span += time.Duration(r.IntN(2000)) * time.Microsecond
		b.Events[j] = g.event(r, s)
		b.Events[j].ago = span
	}
	for j := range b.Events {
		ev := &b.Events[j]
		ev.ago = span - ev.ago
		ev.Timestamp = string(appendStamp(make([]byte, 0, stampLen), at.Add(-ev.ago)))
	}
	return b
}

func (g *Generator) event(r *rand.Rand, s int) Event {
	var ev Event
	isErr := r.Float64() < g.opts.ErrorRatio
	switch {
	case isErr && r.IntN(20) == 0:
		ev.Level = "fatal"
	case isErr:
		ev.Level = "error"
	default:
		switch p := r.IntN(100); {
		case p < 62:
			ev.Level = "info"
		case p < 88:
			ev.Level = "debug"
		default:
			ev.Level = "warn"
		}
	}
	// Skewed popularity: a few templates dominate, as in real traffic. A
	// service with no templates of its own borrows anyone's.
	u := r.Float64()
	ti := int(u * u * float64(len(g.templates)))
	if ids := g.byService[s]; len(ids) > 0 {
		ti = ids[int(u*u*float64(len(ids)))]
	}
	t := &g.templates[ti]
	ev.Template = ti
	ev.Message = t.render(r)
	if isErr || r.Float64() < g.stackOther {
		ev.StackTrace = t.stack(r, ev.Message)
	}
	if r.IntN(10) < 7 {
		ev.TraceID = hex(r, 32)
		ev.SpanID = hex(r, 16)
	}
	ev.Attributes = g.attributes(r, s)
	return ev
}

var methods = []string{"GET", "GET", "GET", "POST", "POST", "PUT", "DELETE", "PATCH"}

func (g *Generator) attributes(r *rand.Rand, s int) []Attr {
	a := make([]Attr, 0, 9)
	a = append(a, Attr{Key: "region", Value: g.services[s].region})
	svc := &g.services[s]
	a = append(a, Attr{Key: "host", Value: svc.hosts[r.IntN(len(svc.hosts))]})
	a = append(a, Attr{Key: "logger", Value: svc.loggers[r.IntN(len(svc.loggers))]})
	if r.IntN(3) > 0 {
		a = append(a,
			Attr{Key: "http.method", Value: methods[r.IntN(len(methods))]},
			Attr{Key: "http.route", Value: "/api/v1/" + pathRoots[r.IntN(len(pathRoots))] + "/{id}"},
			Attr{Key: "http.status_code", Value: strconv.Itoa(statuses[r.IntN(len(statuses))]), Num: true})
	}
	if r.IntN(5) < 3 {
		a = append(a, Attr{Key: "request_id", Value: "req_" + hex(r, 16)})
	}
	if r.IntN(2) == 0 {
		a = append(a, Attr{Key: "user_id", Value: "usr_" + strconv.Itoa(10000+r.IntN(90000))})
	}
	if r.IntN(4) == 0 {
		a = append(a, Attr{Key: "duration_ms", Value: strconv.Itoa(r.IntN(2500)), Num: true})
	}
	return a
}

var statuses = []int{200, 200, 200, 200, 201, 204, 400, 404, 409, 500, 502}

const hexDigits = "0123456789abcdef"

func hex(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = hexDigits[r.IntN(16)]
	}
	return string(b)
}
