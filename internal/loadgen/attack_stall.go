package loadgen

import (
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"strconv"
	"sync"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc/codes"
)

// AttackGRPCStall keeps Concurrency OTLP/gRPC Export calls open with Key,
// each sending its headers and the 5-byte prefix of a gzip-compressed
// message and then nothing, and opens another as the server ends one: a
// call the server must reserve room for (a compressed message's inflated
// size is unknown), the worst an idle call can make it hold. Each call's
// answer is the gRPC code the server ended it with.
const AttackGRPCStall = "grpc-stall"

// grpcStall is the grpc-stall attack: each call on a connection of its
// own, written frame by frame (no gRPC library sends part of a message).
type grpcStall struct {
	c *AttackConfig
}

func (a *grpcStall) run(ctx, attack context.Context) (attackResult, error) {
	var o outcomes
	var wg sync.WaitGroup
	for range a.c.Concurrency {
		wg.Go(func() {
			for attack.Err() == nil && ctx.Err() == nil {
				t0 := time.Now()
				if answer, ok := a.call(attack); ok {
					o.add(answer, time.Since(t0))
				}
			}
		})
	}
	wg.Wait()
	return attackResult{requests: o.requests()}, nil
}

// call makes one stalled call and waits for the server to end it. It
// reports false when the attack ended first.
func (a *grpcStall) call(attack context.Context) (string, bool) {
	var d net.Dialer
	conn, err := d.DialContext(attack, "tcp", a.c.GRPCAddr)
	if err != nil {
		return netError(err), attack.Err() == nil
	}
	defer conn.Close()
	stop := context.AfterFunc(attack, func() { _ = conn.Close() })
	defer stop()
	answer, err := stalledExport(conn, a.c.GRPCAddr, a.c.Key)
	if attack.Err() != nil {
		return "", false
	}
	if err != nil {
		return netError(err), true
	}
	return answer, true
}

// stalledExport opens an Export call (stream 1) on conn, sends the prefix
// of a 1 KiB gzip-compressed message and reads until the call's trailers,
// returning the gRPC code they carry.
func stalledExport(conn net.Conn, authority, key string) (string, error) {
	fr := http2.NewFramer(conn, conn)
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	for _, f := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":path", exportMethod}, {":authority", authority},
		{"content-type", "application/grpc"}, {"te", "trailers"}, {"grpc-encoding", "gzip"}, {"authorization", "Bearer " + key}} {
		_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]}) // writes to a bytes.Buffer do not fail
	}
	prefix := []byte{1, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(prefix[1:], 1<<10)
	if _, err := conn.Write([]byte(http2.ClientPreface)); err != nil {
		return "", err
	}
	if err := fr.WriteSettings(); err != nil {
		return "", err
	}
	if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block.Bytes(), EndHeaders: true}); err != nil {
		return "", err
	}
	if err := fr.WriteData(1, false, prefix); err != nil {
		return "", err
	}
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return "", err
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = fr.WriteSettingsAck()
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				_ = fr.WritePing(true, f.Data)
			}
		case *http2.MetaHeadersFrame:
			if f.StreamEnded() {
				n, err := strconv.Atoi(headerOf(f, "grpc-status"))
				if err != nil {
					return "no grpc-status", nil
				}
				return codes.Code(n).String(), nil
			}
		}
	}
}

func headerOf(f *http2.MetaHeadersFrame, name string) string {
	for _, hf := range f.Fields {
		if hf.Name == name {
			return hf.Value
		}
	}
	return ""
}
