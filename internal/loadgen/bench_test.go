package loadgen

import "testing"

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
