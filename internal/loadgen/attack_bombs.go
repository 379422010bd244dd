package loadgen

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
	_ "google.golang.org/grpc/encoding/gzip" // the bombs are gzip-compressed gRPC messages
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// outcomes records the answers of a bomb's requests and how long each
// took, by answer.
type outcomes struct {
	mu  sync.Mutex
	lat map[string][]time.Duration
}

func (o *outcomes) add(answer string, d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.lat == nil {
		o.lat = map[string][]time.Duration{}
	}
	o.lat[answer] = append(o.lat[answer], d)
}

// requests summarises the outcomes, answers in order.
func (o *outcomes) requests() *Requests {
	r := &Requests{}
	names := make([]string, 0, len(o.lat))
	for name := range o.lat {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		l := o.lat[name]
		slices.Sort(l)
		r.Sent += int64(len(l))
		r.Answers = append(r.Answers, Answer{Answer: name, Count: int64(len(l)), Latency: latencyOf(l)})
	}
	return r
}

// flood keeps n calls of send in flight until attack ends and records
// their answers. send makes one call under ctx and returns its answer.
func flood(ctx, attack context.Context, n int, send func(ctx context.Context, worker int) string) *Requests {
	var o outcomes
	var wg sync.WaitGroup
	for w := range n {
		wg.Go(func() {
			for attack.Err() == nil && ctx.Err() == nil {
				t0 := time.Now()
				answer := send(ctx, w)
				if ctx.Err() != nil {
					return // interrupted: not an answer of the server
				}
				o.add(answer, time.Since(t0))
			}
		})
	}
	wg.Wait()
	return o.requests()
}

// gzipBomb posts one small gzip body that inflates past the limit, over
// and over.
type gzipBomb struct {
	c           *AttackConfig
	body        []byte
	contentType string
	client      *http.Client
}

func newGzipBomb(c *AttackConfig) (*gzipBomb, error) {
	b := &gzipBomb{c: c, contentType: "application/json", client: &http.Client{Timeout: c.Timeout,
		Transport: &http.Transport{MaxIdleConnsPerHost: c.Concurrency}}}
	var raw []byte
	if c.Path == "/v1/logs" {
		req, err := logsBomb(c.BombBytes)
		if err != nil {
			return nil, err
		}
		raw, b.contentType = req, "application/x-protobuf"
	} else {
		// One event whose message is the whole body: valid JSON, so that a
		// bomb under the limit is decoded (and refused for its size).
		const head, tail = `{"service":"bomb","events":[{"level":"error","message":"`, `"}]}`
		raw = make([]byte, 0, max(c.BombBytes, len(head)+len(tail)))
		raw = append(raw, head...)
		raw = append(raw, bytes.Repeat([]byte{'A'}, max(0, c.BombBytes-len(head)-len(tail)))...)
		raw = append(raw, tail...)
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(raw) // writes to a bytes.Buffer do not fail
	_ = zw.Close()
	if c.HideSize {
		// A second, empty member: the body's trailer then says it
		// inflates to nothing, and only inflating it shows otherwise.
		zw.Reset(&buf)
		_ = zw.Close()
	}
	b.body = buf.Bytes()
	return b, nil
}

func (b *gzipBomb) run(ctx, attack context.Context) (attackResult, error) {
	url := joinURL(b.c.URL, b.c.Path)
	reqs := flood(ctx, attack, b.c.Concurrency, func(ctx context.Context, _ int) string {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b.body))
		if err != nil {
			return "bad request"
		}
		req.Header.Set("Content-Type", b.contentType)
		req.Header.Set("Content-Encoding", "gzip")
		req.Header.Set("Authorization", "Bearer "+b.c.Key)
		resp, err := b.client.Do(req)
		if err != nil {
			return netError(err)
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close()
		return strconv.Itoa(resp.StatusCode)
	})
	reqs.BodyBytes, reqs.InflatedBytes = int64(len(b.body)), int64(b.c.BombBytes)
	return attackResult{requests: reqs}, refusedKey(reqs)
}

// refusedKey fails a gzip bomb whose every answer was 401 or 403: the key
// is wrong and nothing was read.
func refusedKey(r *Requests) error {
	for _, a := range r.Answers {
		if a.Answer != "401" && a.Answer != "403" && a.Answer != "Unauthenticated" {
			return nil
		}
	}
	if r.Sent == 0 {
		return nil
	}
	return errors.New("loadgen: every request was refused for its key: check --key")
}

// logsBomb is an ExportLogsServiceRequest of about size bytes: one log
// record whose body is a string of one repeated letter.
func logsBomb(size int) ([]byte, error) {
	logs := plog.NewLogs()
	logs.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body().SetStr(strings.Repeat("A", max(size-16, 1)))
	return plogotlp.NewExportRequestFromLogs(logs).MarshalProto()
}

// exportMethod is OTLP's LogsService/Export.
const exportMethod = "/opentelemetry.proto.collector.logs.v1.LogsService/Export"

// grpcBomb makes OTLP/gRPC exports of one message that gzip makes tiny.
// The message is marshalled and compressed once (a grpc.PreparedMsg), so
// the attack costs its sender almost nothing beside the server.
type grpcBomb struct {
	c     *AttackConfig
	key   string
	msg   []byte
	ready *grpc.PreparedMsg // msg marshalled and compressed, sent on every stream
	conns []*grpc.ClientConn
}

func newGRPCBomb(c *AttackConfig) (*grpcBomb, error) {
	msg, err := logsBomb(c.BombBytes)
	if err != nil {
		return nil, err
	}
	return &grpcBomb{c: c, key: cmp.Or(c.Key, BogusKey), msg: msg}, nil
}

// Each caller has a connection of its own, as many separate clients
// would; one connection would carry only the server's limit of
// concurrent calls.
func (b *grpcBomb) run(ctx, attack context.Context) (attackResult, error) {
	conns, err := dialGRPC(b.c.GRPCAddr, b.c.Concurrency)
	if err != nil {
		return attackResult{}, err
	}
	b.conns = conns
	defer b.close()
	if err := b.prepare(ctx); err != nil {
		return attackResult{}, err
	}
	reqs := flood(ctx, attack, b.c.Concurrency, b.export)
	reqs.BodyBytes, reqs.InflatedBytes = int64(b.compressedSize()), int64(len(b.msg))
	if b.c.Key != "" {
		err = refusedKey(reqs)
	}
	return attackResult{requests: reqs}, err
}

func (b *grpcBomb) close() { closeGRPC(b.conns) }

// export makes one Export call on worker w's connection and returns its
// gRPC code; an OK answer that rejected records says so.
func (b *grpcBomb) export(ctx context.Context, w int) string {
	ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+b.key), b.c.Timeout)
	defer cancel()
	stream, err := b.conns[w].NewStream(ctx, &grpc.StreamDesc{StreamName: "Export"}, exportMethod,
		grpc.ForceCodecV2(rawCodec{}), grpc.UseCompressor("gzip"))
	if err != nil {
		return status.Code(err).String()
	}
	// A refusal before the message is read ends the stream: SendMsg then
	// says io.EOF and RecvMsg has the status.
	if err := stream.SendMsg(b.ready); err != nil && !errors.Is(err, io.EOF) {
		return status.Code(err).String()
	}
	var reply []byte
	if err := stream.RecvMsg(&reply); err != nil {
		return status.Code(err).String()
	}
	resp := plogotlp.NewExportResponse()
	if resp.UnmarshalProto(reply) == nil && resp.PartialSuccess().RejectedLogRecords() > 0 {
		return "OK, rejected"
	}
	return "OK"
}

// prepare marshals and compresses the bomb once, before the attack: a
// grpc.PreparedMsg is made for a stream's codec and compressor, so one is
// opened for it and cancelled before it sends a message.
func (b *grpcBomb) prepare(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, b.c.Timeout)
	defer cancel()
	stream, err := b.conns[0].NewStream(ctx, &grpc.StreamDesc{StreamName: "Export"}, exportMethod,
		grpc.ForceCodecV2(rawCodec{}), grpc.UseCompressor("gzip"))
	if err != nil {
		return fmt.Errorf("loadgen: open a gRPC stream to %s: %w", b.c.GRPCAddr, err)
	}
	b.ready = &grpc.PreparedMsg{}
	if err := b.ready.Encode(stream, &b.msg); err != nil {
		return fmt.Errorf("loadgen: prepare the bomb: %w", err)
	}
	return nil
}

// compressedSize is the bomb's size gzipped, as gRPC sends it.
func (b *grpcBomb) compressedSize() int {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(b.msg)
	_ = zw.Close()
	return buf.Len()
}

// rawCodec sends a message as the bytes it is and receives the reply as
// bytes: the bomb is marshalled once, the reply decoded by pdata.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "proto" }
