package loadgen

import (
	"testing"
	"time"
)

// BenchmarkBatch measures building and encoding one default batch of 1,000
// events: the generator must outpace the server it loads.
func BenchmarkBatch(b *testing.B) {
	o := DefaultOptions()
	o.Start = testStart
	g, err := NewGenerator(o)
	if err != nil {
		b.Fatal(err)
	}
	var buf []byte
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		bt := g.Batch(i)
		buf, _ = EncodeBatch(buf[:0], &bt)
		b.SetBytes(int64(len(buf)))
	}
}

// BenchmarkRestamp measures what stamping a prebuilt 1,000-event batch
// with the send time costs a sender: copying the body and writing its
// 1,000 timestamps again.
func BenchmarkRestamp(b *testing.B) {
	o := DefaultOptions()
	o.Start = testStart
	g, err := NewGenerator(o)
	if err != nil {
		b.Fatal(err)
	}
	bt := g.Batch(0)
	var stamps []stamp
	body, _ := encodeBatch(nil, &bt, &stamps)
	buf := make([]byte, 0, len(body))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		buf = append(buf[:0], body...)
		restamp(buf, stamps, time.Now())
	}
}
