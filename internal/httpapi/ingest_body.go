package httpapi

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// The helpers here are shared by every HTTP ingestion route: POST /v1/ingest
// and POST /v1/logs (package otlp) admit requests and read bodies the same
// way and differ only in the format of their answers.

// AdmitIngest runs in.Admit for an ingestion request and writes the
// RateLimit-* headers of the answer: those of the project's bucket, or, when
// the request was refused before its project was known, those of the
// caller's address in the management API's limiter. A refusal comes back as
// the error, for the route to answer in its own format.
func (s *Server) AdmitIngest(w http.ResponseWriter, r *http.Request, in *Intake, route string) (store.Project, error) {
	p, rl, err := in.Admit(r.Context(), route, bearer(r))
	if rl == nil { // refused before the project was known: limit by address
		res := s.callers.Allow("ip:" + clientIP(r))
		rl = &res
	}
	rl.SetHeaders(w.Header())
	return p, err
}

// IngestEncoding reads Content-Encoding: gzip reports a gzip body; anything
// but gzip, identity or nothing is a 415 unsupported-encoding problem.
func IngestEncoding(r *http.Request) (gzipped bool, pr *problem.Problem) {
	enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding")))
	if enc != "" && enc != "identity" && enc != "gzip" {
		return false, problem.Newf("unsupported-encoding", "Content-Encoding %q is not supported; send gzip or no encoding", enc)
	}
	return enc == "gzip", nil
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Body is an ingestion request body read under the limits. Release hands
// its buffers back for reuse; Bytes must not be used afterwards.
type Body struct {
	Bytes []byte
	bufs  []*bytes.Buffer
}

// Release returns the body's buffers to the pool.
func (b *Body) Release() {
	for _, buf := range b.bufs {
		putBuf(buf)
	}
	b.bufs, b.Bytes = nil, nil
}

// ReadIngestBody reads r's body with hard limits: MaxIngestWireBytes on the
// wire and, for a gzip body, MaxIngestDecodedBytes decompressed (a gzip bomb
// stops there). A refusal returns the metrics reason and the problem: 413
// payload-too-large or 400 malformed-body. The caller must Release the body.
func ReadIngestBody(r *http.Request, gzipped bool) (*Body, string, *problem.Problem) {
	tooLarge := problem.New("payload-too-large", "the body is over 5 MiB; send fewer events per batch")
	if r.ContentLength > MaxIngestWireBytes {
		return nil, metrics.RefusedTooLarge, tooLarge
	}
	wire := bufPool.Get().(*bytes.Buffer)
	body := &Body{bufs: []*bytes.Buffer{wire}}
	if n, err := wire.ReadFrom(io.LimitReader(r.Body, MaxIngestWireBytes+1)); err != nil {
		body.Release()
		return nil, metrics.RefusedMalformed, problem.New("malformed-body", "the body could not be read")
	} else if n > MaxIngestWireBytes {
		body.Release()
		return nil, metrics.RefusedTooLarge, tooLarge
	}
	body.Bytes = wire.Bytes()
	if gzipped {
		plain := bufPool.Get().(*bytes.Buffer)
		body.bufs = append(body.bufs, plain)
		if reason, pr := gunzip(plain, body.Bytes); pr != nil {
			body.Release()
			return nil, reason, pr
		}
		body.Bytes = plain.Bytes()
	}
	return body, "", nil
}

var gzPool sync.Pool

// gunzip decompresses src into dst, stopping at the decoded limit.
func gunzip(dst *bytes.Buffer, src []byte) (string, *problem.Problem) {
	bad := problem.New("malformed-body", "the body is not valid gzip")
	zr, _ := gzPool.Get().(*gzip.Reader)
	var err error
	if zr == nil {
		zr, err = gzip.NewReader(bytes.NewReader(src))
	} else {
		err = zr.Reset(bytes.NewReader(src))
	}
	if err != nil {
		return metrics.RefusedMalformed, bad
	}
	defer gzPool.Put(zr)
	n, err := dst.ReadFrom(io.LimitReader(zr, MaxIngestDecodedBytes+1))
	if n > MaxIngestDecodedBytes {
		return metrics.RefusedTooLarge, problem.New("payload-too-large", "the body is over 20 MiB decompressed; send fewer events per batch")
	}
	if err != nil {
		return metrics.RefusedMalformed, bad
	}
	return "", nil
}

func putBuf(b *bytes.Buffer) {
	if b.Cap() <= 2*MaxIngestDecodedBytes {
		b.Reset()
		bufPool.Put(b)
	}
}
