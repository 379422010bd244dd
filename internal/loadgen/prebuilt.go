package loadgen

import (
	"bytes"
	"compress/gzip"
)

// readyBatch is one batch ready to send.
type readyBatch struct {
	body   []byte // as sent (gzip-compressed with --gzip)
	raw    int    // bytes before compression
	events int
	size   int // readyBatch size of the events, for the mean event size
}

// prebuilt holds batches generated and readyBatch before a run starts.
type prebuilt struct{ batches []readyBatch }

func prebuild(c *Config, g *Generator, n int) *prebuilt {
	p := &prebuilt{batches: make([]readyBatch, n)}
	for i := range p.batches {
		b := g.Batch(i)
		buf, size := c.encode(g, nil, &b)
		e := readyBatch{body: buf, raw: len(buf), events: len(b.Events), size: size}
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
