package process

import (
	"hash/maphash"
	"strings"
	"sync"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/summary"
)

// memo remembers what was computed from a text (a message, a message and
// its stack trace) across the claims of a process: logs repeat, and
// parameterising or fingerprinting the same text again in every claim was
// about a seventh of processing's CPU under the load generator's preset
// (docs/decisions.md, "Processing"). It is direct-mapped: a text's slot is
// chosen by its hash, and a new text takes the slot, so that a stream of
// texts that never repeat costs two hashes and a store each, never a
// growing map; it still costs (3-30 % of preparing on texts that never
// repeat, docs/performance.md). A slot keeps its text's 128-bit hash (two
// seeded hashes, random per process), not the text. Safe for concurrent
// use.
type memo[V any] struct {
	seeds [2]maphash.Seed
	mu    sync.Mutex
	slots []memoSlot[V]
}

type memoSlot[V any] struct {
	h   [2]uint64
	set bool
	v   V
}

func newMemo[V any](slots int) *memo[V] {
	return &memo[V]{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, slots: make([]memoSlot[V], slots)}
}

func (m *memo[V]) hash(k string) [2]uint64 {
	return [2]uint64{maphash.String(m.seeds[0], k), maphash.String(m.seeds[1], k)}
}

// get returns the value kept for k, and k's hash for put.
func (m *memo[V]) get(k string) (V, [2]uint64, bool) {
	h := m.hash(k)
	m.mu.Lock()
	defer m.mu.Unlock()
	sl := &m.slots[h[0]%uint64(len(m.slots))]
	if sl.set && sl.h == h {
		return sl.v, h, true
	}
	var zero V
	return zero, h, false
}

// put keeps v for the text of hash h. v must hold nothing of a batch's
// payload: the memo would keep it alive.
func (m *memo[V]) put(h [2]uint64, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.slots[h[0]%uint64(len(m.slots))] = memoSlot[V]{h: h, set: true, v: v}
}

// template is a message's parameterised form and its hash (an INFO
// summary's top message).
type template struct{ text, hash string }

// memos are the memos of a Processor, shared by its workers.
type memos struct {
	templates *memo[template]
	// senderTemplates are the templates INFO events sent with theirs
	// (senderTemplate), by the template as sent.
	senderTemplates *memo[template]
	fingerprints    *memo[fingerprinted]
	// facetTallies are groups' value counts (groupAgg.facets) of parts
	// already applied, emptied: a part's tallies start with the room an
	// earlier part's grew to, instead of growing again from empty (half
	// of their cost when each part made its own).
	facetTallies sync.Pool
}

// facetTally returns an empty value-count tally for a group of a part (m
// may be nil: a new tally).
func (m *memos) facetTally() *facetTally {
	if m != nil {
		if t, ok := m.facetTallies.Get().(*facetTally); ok {
			return t
		}
	}
	return &facetTally{index: map[facetKV]int{}}
}

// recycle takes back the value-count tallies of a part that was applied
// (or given up): nothing reads them afterwards.
func (m *memos) recycle(pr *prepared) {
	if m == nil || pr == nil {
		return
	}
	for _, g := range pr.groups {
		if g.facets != nil {
			g.facets.reset()
			m.facetTallies.Put(g.facets)
			g.facets = nil
		}
	}
}

// Sizes of the memos, in slots: some ten megabytes of templates, and
// fingerprints (a copied message and trace, parsed frames) for about twice
// the load generator's distinct errors of 16 batches; 16,384 fingerprint
// slots held tens of megabytes for the garbage collector to scan.
const (
	templateMemoSlots       = 1 << 16
	senderTemplateMemoSlots = 1 << 12
	fingerprintMemoSlots    = 1 << 12
	// maxMemoText is the longest message (or message and stack trace)
	// remembered: longer texts are parameterised each time.
	maxMemoText = 16 << 10
)

func newMemos() *memos {
	return &memos{templates: newMemo[template](templateMemoSlots), senderTemplates: newMemo[template](senderTemplateMemoSlots),
		fingerprints: newMemo[fingerprinted](fingerprintMemoSlots)}
}

// template returns the template of an INFO message and its hash, from the
// memo when the message was seen before (m may be nil: no memo).
func (m *memos) template(msg string) template {
	if m == nil {
		return templateOf(msg)
	}
	return remembered(m.templates, msg, templateOf)
}

// senderTemplate returns the summary template of an INFO event sent with
// its own template raw (as sent: grouping.TemplateText of it, placeholders
// kept) and its hash, from the memo when raw was seen before (m may be
// nil: no memo).
func (m *memos) senderTemplate(raw string) template {
	if m == nil {
		return senderTemplateOf(raw)
	}
	return remembered(m.senderTemplates, raw, senderTemplateOf)
}

// templateOf parameterises an INFO message. Parameterize builds a new
// string: nothing of msg's payload is kept (TestMemoTemplateKeepsNoPayload).
func templateOf(msg string) template {
	st := summary.TemplateOf(msg)
	return template{text: st.Text, hash: st.Hash}
}

// senderTemplateOf is a sender's template as its summary counts it, a copy
// that keeps nothing of raw.
func senderTemplateOf(raw string) template {
	text := strings.Clone(grouping.TemplateText(raw))
	return template{text: text, hash: summary.TemplateHash(text)}
}

// remembered returns what mm keeps for key, else computes it with of and
// keeps it (texts over maxMemoText are computed each time).
func remembered[V any](mm *memo[V], key string, of func(string) V) V {
	if len(key) > maxMemoText {
		return of(key)
	}
	v, h, ok := mm.get(key)
	if !ok {
		v = of(key)
		mm.put(h, v)
	}
	return v
}

// fingerprinted is what the fingerprint memo keeps for an error's text:
// what grouping read and what it made of it, both copies that share
// nothing with a batch's payload.
type fingerprinted struct {
	in      grouping.Input
	current grouping.Result
}

// fingerprint returns the fingerprints of e, whose text and grouping
// attributes are ck, from the memo when an event of that text was seen
// before (m may be nil: no memo). Events of a project with grouping rules
// are not remembered: rules match anything and change.
func (m *memos) fingerprint(ck string, e *ingest.Event, rules *grouping.Rules) *fingerprints {
	if m == nil || rules != nil || len(ck) > maxMemoText {
		in := groupingInput(e, rules)
		return &fingerprints{in: in, current: grouping.Fingerprint(in)}
	}
	v, h, ok := m.fingerprints.get(ck)
	if ok {
		return &fingerprints{in: v.in, current: v.current}
	}
	in := groupingInput(e, nil)
	// The message and the trace alias the payload, and the result is
	// made of parts of them: computed from copies.
	in.Message, in.StackTrace = strings.Clone(in.Message), strings.Clone(in.StackTrace)
	v = fingerprinted{in: in, current: grouping.Fingerprint(in)}
	m.fingerprints.put(h, v)
	return &fingerprints{in: v.in, current: v.current}
}
