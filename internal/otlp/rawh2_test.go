package otlp_test

import (
	"bytes"
	"encoding/binary"
	"net"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// rawCall is one Export call made frame by frame over a connection of its
// own, so that a test can send a message's prefix and stall, as no gRPC
// client library does. Its stream is 1; more may be opened (stream).
type rawCall struct {
	t     *testing.T
	conn  net.Conn
	fr    *http2.Framer
	enc   *hpack.Encoder
	block bytes.Buffer
	addr  string
}

const exportPath = "/opentelemetry.proto.collector.logs.v1.LogsService/Export"

// openRaw opens an Export call (stream 1) with key; gzip says whether its
// message will be compressed.
func openRaw(t *testing.T, addr, key string, gzip bool) *rawCall {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	c := &rawCall{t: t, conn: conn, fr: http2.NewFramer(conn, conn), addr: addr}
	c.enc = hpack.NewEncoder(&c.block)
	c.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	if _, err := conn.Write([]byte(http2.ClientPreface)); err != nil {
		t.Fatal(err)
	}
	if err := c.fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	c.stream(1, key, gzip)
	return c
}

// stream opens another Export call on the connection, as stream id.
func (c *rawCall) stream(id uint32, key string, gzip bool) {
	c.t.Helper()
	c.block.Reset()
	fields := [][2]string{{":method", "POST"}, {":scheme", "http"}, {":path", exportPath}, {":authority", c.addr},
		{"content-type", "application/grpc"}, {"te", "trailers"}, {"authorization", "Bearer " + key}}
	if gzip {
		fields = append(fields, [2]string{"grpc-encoding", "gzip"})
	}
	for _, f := range fields {
		if err := c.enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]}); err != nil {
			c.t.Fatal(err)
		}
	}
	if err := c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.block.Bytes(), EndHeaders: true}); err != nil {
		c.t.Fatal(err)
	}
}

// prefix sends the 5-byte gRPC prefix of a message of length bytes.
func (c *rawCall) prefix(compressed bool, length int) {
	c.t.Helper()
	p := make([]byte, 5)
	if compressed {
		p[0] = 1
	}
	binary.BigEndian.PutUint32(p[1:], uint32(length))
	c.send(p, false)
}

func (c *rawCall) send(p []byte, end bool) {
	c.t.Helper()
	if err := c.fr.WriteData(1, end, p); err != nil {
		c.t.Fatal(err)
	}
}

// statusWithin reads the server's frames until the call's trailers and
// returns their grpc-status and grpc-message; ok is false when none came
// within d.
func (c *rawCall) statusWithin(d time.Duration) (code, message string, ok bool) {
	_ = c.conn.SetReadDeadline(time.Now().Add(d))
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			return "", err.Error(), false
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = c.fr.WriteSettingsAck()
			}
		case *http2.MetaHeadersFrame:
			if f.StreamEnded() {
				return headerValue(f, "grpc-status"), headerValue(f, "grpc-message"), true
			}
		}
	}
}

func headerValue(f *http2.MetaHeadersFrame, name string) string {
	for _, hf := range f.Fields {
		if hf.Name == name {
			return hf.Value
		}
	}
	return ""
}
