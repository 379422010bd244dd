// Package id makes the prefixed, time-ordered identifiers of the interface
// (spec section 2): "org_01jd…". The part after the prefix is 26 characters of
// lowercase Crockford base32: 48 bits of Unix milliseconds followed by 80
// random bits, as in ULID. Identifiers made later sort after earlier ones, so
// list cursors can page on them; within one millisecond a process increments
// the random part so its own identifiers stay strictly ordered.
package id

import (
	"crypto/rand"
	"encoding/binary"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Prefixes of the resources of spec section 2.
const (
	Org          = "org_"
	Project      = "prj_"
	Key          = "key_"
	User         = "usr_"
	Member       = "mem_"
	Invitation   = "inv_"
	Channel      = "chn_"
	Group        = "grp_"
	Ticket       = "tkt_"
	Delivery     = "dlv_"
	TestDelivery = "tst_"
	Digest       = "dig_"
	InfoSummary  = "ism_"
	Request      = "req_"
	Session      = "ses_"
	Activity     = "act_"
	Comment      = "cmt_"
	Token        = "pat_"
	Release      = "rel_"
	Deploy       = "dep_"
	Artifact     = "art_"
	Audit        = "aud_"
	// StoredEvent prefixes a stored sample event's number (FormatEvent).
	StoredEvent = "evt_"
)

// FormatEvent is a stored event's id as the API shows it: its number after
// the prefix evt_, so that it reads like every other identifier.
func FormatEvent(n int64) string { return StoredEvent + strconv.FormatInt(n, 10) }

// ParseEvent reads a stored event's id: evt_<number>, or the bare number
// ids were before they had the prefix. ok is false for anything else.
func ParseEvent(s string) (n int64, ok bool) {
	digits := strings.TrimPrefix(s, StoredEvent)
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != digits { // one spelling: no sign, no leading zero
		return 0, false
	}
	return n, true
}

const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"

var gen struct {
	sync.Mutex
	lastMS int64
	last   [10]byte
}

// New returns a fresh identifier with the given prefix.
func New(prefix string) string {
	return NewAt(prefix, time.Now())
}

// NewAt returns a fresh identifier whose time part is t.
func NewAt(prefix string, t time.Time) string {
	var b [16]byte
	ms := t.UnixMilli()
	gen.Lock()
	switch {
	case ms == gen.lastMS:
		increment(&gen.last)
		copy(b[6:], gen.last[:])
	case ms > gen.lastMS:
		gen.lastMS = ms
		_, _ = rand.Read(gen.last[:])
		gen.last[0] &= 0x7f // leave room to increment within one millisecond
		copy(b[6:], gen.last[:])
	default:
		// An earlier time (an INFO window's start): leave the sequence of the
		// latest millisecond alone, or the next New in it could sort first.
		_, _ = rand.Read(b[6:])
	}
	gen.Unlock()
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], uint64(ms))
	copy(b[:6], ts[2:])
	return prefix + encode(b)
}

func increment(r *[10]byte) {
	for i := len(r) - 1; i >= 0; i-- {
		r[i]++
		if r[i] != 0 {
			return
		}
	}
}

// encode writes 128 bits as 26 base32 characters, most significant first.
func encode(b [16]byte) string {
	hi := binary.BigEndian.Uint64(b[:8])
	lo := binary.BigEndian.Uint64(b[8:])
	var out [26]byte
	// 26*5 = 130 bits: the first character carries only the top 3 bits.
	for i := 25; i >= 0; i-- {
		out[i] = alphabet[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}

// Valid reports whether s has the given prefix followed by a well-formed body.
func Valid(prefix, s string) bool {
	body, ok := strings.CutPrefix(s, prefix)
	if !ok || len(body) != 26 {
		return false
	}
	for i := 0; i < len(body); i++ {
		if strings.IndexByte(alphabet, body[i]) < 0 {
			return false
		}
	}
	return body[0] <= '7'
}
