package otlp

import (
	"bytes"
	"fmt"
	"net"
	"slices"
	"testing"

	"golang.org/x/net/http2"
)

// recorder keeps what the frame reader reported, in order.
type recorder struct {
	events []string
	got    map[uint32][]byte
}

func (r *recorder) data(stream uint32, p []byte) {
	if r.got == nil {
		r.got = map[uint32][]byte{}
	}
	r.got[stream] = append(r.got[stream], p...)
}

func (r *recorder) ended(stream uint32) { r.events = append(r.events, fmt.Sprintf("end %d", stream)) }

func (r *recorder) headerBlock(stream uint32, endStream bool) {
	r.events = append(r.events, fmt.Sprintf("block %d %v", stream, endStream))
}

// connBytes is a client's side of a gRPC connection, written with the
// frames an HTTP/2 library makes: padded and continued header blocks,
// padded DATA, a stream ended by its HEADERS, a reset.
func connBytes(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(http2.ClientPreface)
	fr := http2.NewFramer(&b, nil)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 20}))
	must(fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: []byte("first half"), PadLength: 7}))
	must(fr.WriteContinuation(1, true, []byte("second half")))
	must(fr.WriteDataPadded(1, false, []byte("\x00\x00\x00\x00\x0dhello"), []byte{0, 0, 0, 0}))
	must(fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, BlockFragment: []byte("h"), EndHeaders: true, EndStream: true}))
	must(fr.WritePing(false, [8]byte{1}))
	must(fr.WriteData(1, false, nil))
	must(fr.WriteData(1, true, []byte(", world!")))
	must(fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 5, BlockFragment: []byte("h"), EndHeaders: true}))
	must(fr.WriteDataPadded(5, false, []byte("ab"), make([]byte, 200)))
	must(fr.WriteRSTStream(5, http2.ErrCodeCancel))
	return b.Bytes()
}

// TestFrameReader: whatever the chunks, the DATA of each stream is its
// payload without padding, streams end on END_STREAM (in DATA or HEADERS)
// and RST_STREAM, and a chunk is passed only up to a header block's end.
func TestFrameReader(t *testing.T) {
	in := connBytes(t)
	want := []string{"block 1 false", "block 3 true", "end 1", "block 5 false", "end 5"}
	for _, size := range []int{1, 2, 5, 9, 10, 64, 1 << 20} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			r := &recorder{}
			f := newFrameReader()
			for off := 0; off < len(in); {
				chunk := in[off:min(off+size, len(in))]
				before := len(r.events)
				n := f.pass(chunk, r)
				if n < 1 {
					t.Fatalf("pass took %d bytes of %d", n, len(chunk))
				}
				// A header block's end is the last thing a chunk passes.
				for i := before; i < len(r.events)-1; i++ {
					if r.events[i][:5] == "block" {
						t.Fatalf("at %d: %q passed with later frames after it", off, r.events[i])
					}
				}
				off += n
			}
			if !slices.Equal(r.events, want) {
				t.Errorf("events %q, want %q", r.events, want)
			}
			if got := string(r.got[1]); got != "\x00\x00\x00\x00\x0dhello, world!" {
				t.Errorf("stream 1's data %q", got)
			}
			if got := string(r.got[5]); got != "ab" {
				t.Errorf("stream 5's data %q, want %q (padding left out)", got, "ab")
			}
			if _, ok := r.got[3]; ok {
				t.Errorf("stream 3 had data %q, want none", r.got[3])
			}
		})
	}
}

// readerConn is a net.Conn whose reads come from r.
type readerConn struct {
	net.Conn
	r *bytes.Reader
}

func (c readerConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// BenchmarkGateRead: what the gate costs a connection's bytes: following
// the frames and copying them to gRPC's reads (32 KiB, as gRPC's buffered
// reader asks), for 16 KiB DATA frames (the HTTP/2 default size) of a
// stream the gate follows.
func BenchmarkGateRead(b *testing.B) {
	var buf bytes.Buffer
	fr := http2.NewFramer(&buf, nil)
	payload := make([]byte, 16<<10)
	for range 64 {
		if err := fr.WriteData(1, false, payload); err != nil {
			b.Fatal(err)
		}
	}
	in := buf.Bytes()
	p := make([]byte, 32<<10)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		c := &gateConn{Conn: readerConn{r: bytes.NewReader(in)}, g: newGate(),
			streams: map[uint32]*arrival{1: {prefixed: make(chan struct{})}}}
		for {
			if _, err := c.Read(p); err != nil {
				break
			}
		}
	}
}

// TestGateConnHandsEveryByte: whatever gRPC's reads ask for, the gate
// hands over every byte the socket gave, in order, ending a read at each
// header block (lastBlock then names its stream), and then the socket's
// error.
func TestGateConnHandsEveryByte(t *testing.T) {
	in := connBytes(t)
	for _, size := range []int{1, 7, 9, 100, 64 << 10} {
		c := &gateConn{Conn: readerConn{r: bytes.NewReader(in)}, g: newGate(), f: newFrameReader(), streams: map[uint32]*arrival{}}
		var out []byte
		var blocks []uint32
		p := make([]byte, size)
		for {
			before := c.lastBlock
			n, err := c.Read(p)
			out = append(out, p[:n]...)
			if c.lastBlock != before {
				blocks = append(blocks, c.lastBlock)
			}
			if err != nil {
				break
			}
		}
		if !bytes.Equal(out, in) {
			t.Fatalf("reads of %d: %d bytes out of %d in, or not in order", size, len(out), len(in))
		}
		if want := []uint32{1, 3, 5}; !slices.Equal(blocks, want) {
			t.Errorf("reads of %d: header blocks of streams %v, want %v", size, blocks, want)
		}
	}
}
