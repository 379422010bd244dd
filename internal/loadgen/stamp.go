package loadgen

import "time"

// stampLen is the width of a timestamp as the generator writes it,
// 2006-01-02T15:04:05.000Z: fixed, so that a prebuilt body can be stamped
// again in place without moving a byte (years 0 to 9999).
const stampLen = len("2006-01-02T15:04:05.000Z")

// appendStamp appends t in UTC as 2006-01-02T15:04:05.000Z (milliseconds
// truncated, as time.Format does). It writes the digits itself: stamping a
// prebuilt batch again at every send does this for each of its events.
func appendStamp(dst []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	hour, minute, sec := t.Clock()
	milli := t.Nanosecond() / int(time.Millisecond)
	dst = append(dst, byte('0'+year/1000%10), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-')
	dst = append2(dst, int(month), '-')
	dst = append2(dst, day, 'T')
	dst = append2(dst, hour, ':')
	dst = append2(dst, minute, ':')
	dst = append2(dst, sec, '.')
	return append(dst, byte('0'+milli/100), byte('0'+milli/10%10), byte('0'+milli%10), 'Z')
}

func append2(dst []byte, n int, sep byte) []byte {
	return append(dst, byte('0'+n/10), byte('0'+n%10), sep)
}

// stamp is where a timestamp sits in an encoded body, and how long before
// the batch's time (the send) it is.
type stamp struct {
	at  int // offset of its first byte, inside the quotes
	ago time.Duration
}

// restamp writes each stamp of body again for a batch sent at now. It
// formats a whole timestamp only when the minute changes, and otherwise
// writes the seconds and milliseconds after the minute's prefix: a sender
// does this for every event of every prebuilt batch it sends.
func restamp(body []byte, stamps []stamp, now time.Time) {
	const prefix = len("2006-01-02T15:04:")
	nowNs := now.UnixNano()
	var text [stampLen]byte
	minute := int64(-1)
	for _, s := range stamps {
		ms := (nowNs - int64(s.ago)) / int64(time.Millisecond) // times after 1970: division floors
		if m := ms / 60000; m != minute {
			appendStamp(text[:0], time.UnixMilli(ms))
			minute = m
		} else {
			sec, milli := ms/1000%60, ms%1000
			text[prefix], text[prefix+1] = byte('0'+sec/10), byte('0'+sec%10)
			text[prefix+3], text[prefix+4], text[prefix+5] = byte('0'+milli/100), byte('0'+milli/10%10), byte('0'+milli%10)
		}
		copy(body[s.at:s.at+stampLen], text[:])
	}
}
