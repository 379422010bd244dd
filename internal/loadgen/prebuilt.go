package loadgen

import (
	"bytes"
	"compress/gzip"
	"time"
)

// readyBatch is one batch ready to send.
type readyBatch struct {
	body   []byte // as sent (gzip-compressed with --gzip)
	raw    int    // bytes before compression
	events int
	size   int // encoded size of the events, for the mean event size
	// stamps are where body's timestamps are, written again at each send
	// so that a prebuilt batch carries the time it is sent. Compressed
	// bodies have none: their events go without a timestamp and the
	// server stamps the time of receipt.
	stamps []stamp
}

// prebuilt holds batches generated and encoded before a run starts.
type prebuilt struct{ batches []readyBatch }

func prebuild(c *Config, g *Generator, n int) *prebuilt {
	p := &prebuilt{batches: make([]readyBatch, n)}
	at := time.Now()
	for i := range p.batches {
		b := g.BatchAt(i, at)
		var stamps *[]stamp
		if c.Gzip {
			for j := range b.Events {
				b.Events[j].Timestamp = ""
			}
		} else {
			stamps = new([]stamp)
		}
		buf, size := c.encode(g, nil, &b, stamps)
		e := readyBatch{body: buf, raw: len(buf), events: len(b.Events), size: size}
		if stamps != nil {
			e.stamps = *stamps
		}
		if c.Gzip {
			var z bytes.Buffer
			w := gzip.NewWriter(&z)
			_, _ = w.Write(buf)
			_ = w.Close()
			e.body = z.Bytes()
		}
		p.batches[i] = e
	}
	return p
}

func (p *prebuilt) get(i int) readyBatch { return p.batches[i%len(p.batches)] }
