package process

import (
	"hash/fnv"
	"strconv"
	"strings"
	"sync"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/ingest"
)

// memo remembers what was computed from a text (a message, a message and
// its stack trace) across the claims of a process: logs repeat, and
// parameterising or fingerprinting the same text again in every claim was
// about a seventh of processing's CPU under the load generator's load
// (docs/decisions.md, "Processing"). It holds at most about maxBytes of
// keys and values in two generations: when the newer fills, the older is
// dropped, so that what keeps repeating stays and a stream of texts that
// never repeat costs at most twice maxBytes. Safe for concurrent use.
type memo[V any] struct {
	mu       sync.Mutex
	cur, old map[string]V
	bytes    int
	maxBytes int
}

func newMemo[V any](maxBytes int) *memo[V] {
	return &memo[V]{cur: map[string]V{}, maxBytes: maxBytes}
}

// get returns the value kept for k.
func (m *memo[V]) get(k string) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.cur[k]; ok {
		return v, true
	}
	v, ok := m.old[k]
	if ok {
		m.putLocked(k, v, len(k))
	}
	return v, ok
}

// put keeps v for k; size is what they hold, in bytes. k is copied: it
// may alias a batch's payload, which the memo must not keep alive. v must
// hold nothing of the payload either.
func (m *memo[V]) put(k string, v V, size int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.putLocked(k, v, size)
}

func (m *memo[V]) putLocked(k string, v V, size int) {
	if _, ok := m.cur[k]; ok {
		return
	}
	if m.bytes+size > m.maxBytes {
		m.old, m.cur, m.bytes = m.cur, make(map[string]V, len(m.cur)), 0
	}
	m.cur[strings.Clone(k)] = v
	m.bytes += size
}

// memoEntryBytes is what a memo's map entry costs besides its strings.
const memoEntryBytes = 64

// template is a message's parameterised form and its hash (an INFO
// summary's top message).
type template struct{ text, hash string }

// memos are the memos of a Processor, shared by its workers.
type memos struct {
	templates    *memo[template]
	fingerprints *memo[fingerprinted]
}

// Sizes of the memos: a few tens of megabytes at most (two generations of
// each), within the process's memory budget (docs/performance.md).
const (
	templateMemoBytes    = 4 << 20
	fingerprintMemoBytes = 8 << 20
	// maxMemoText is the longest message (or message and stack trace)
	// remembered: longer texts are parameterised each time.
	maxMemoText = 16 << 10
)

func newMemos() *memos {
	return &memos{templates: newMemo[template](templateMemoBytes), fingerprints: newMemo[fingerprinted](fingerprintMemoBytes)}
}

// template returns the template of an INFO message and its hash, from the
// memo when the message was seen before (m may be nil: no memo).
func (m *memos) template(msg string) template {
	if m != nil {
		if t, ok := m.templates.get(msg); ok {
			return t
		}
	}
	tpl := grouping.Parameterize(msg)
	h := fnv.New64a()
	_, _ = h.Write([]byte(tpl))
	t := template{text: tpl, hash: strconv.FormatUint(h.Sum64(), 16)}
	if m != nil && len(msg) <= maxMemoText {
		// The template may be a part of msg: copied, so that the memo
		// keeps no payload alive.
		t.text = strings.Clone(tpl)
		m.templates.put(msg, t, len(msg)+len(tpl)+len(t.hash)+memoEntryBytes)
	}
	return t
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
	if v, ok := m.fingerprints.get(ck); ok {
		return &fingerprints{in: v.in, current: v.current}
	}
	in := groupingInput(e, nil)
	// The message and the trace alias the payload, and the result is
	// made of parts of them: computed from copies.
	in.Message, in.StackTrace = strings.Clone(in.Message), strings.Clone(in.StackTrace)
	v := fingerprinted{in: in, current: grouping.Fingerprint(in)}
	m.fingerprints.put(ck, v, len(ck)+2*(len(in.Message)+len(in.StackTrace))+len(v.current.Frames)*128+memoEntryBytes)
	return &fingerprints{in: v.in, current: v.current}
}
