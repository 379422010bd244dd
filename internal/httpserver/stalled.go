package httpserver

import (
	"errors"
	"io"
	"net/http"
	"os"
	"sync/atomic"
)

// stalledBody is a request body that remembers whether a read of it ran
// past the connection's read deadline (ERRATA_READ_TIMEOUT, or huma's body
// timeout on management routes): the client stopped sending.
type stalledBody struct {
	io.ReadCloser
	stalled atomic.Bool
}

func (b *stalledBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		b.stalled.Store(true)
	}
	return n, err
}

// abortIfStalled closes the connection without an answer when the request's
// body stopped arriving and the handler is about to refuse it (CONTRACT 7:
// the whole request arrives within the read timeout, "or the connection is
// closed"). An answer would name the body malformed, and a 4xx tells
// clients to drop what they sent, while a closed connection is one they
// send again: nothing of it was accepted. http.ErrAbortHandler is how
// net/http closes a connection without logging a panic.
func abortIfStalled(body *stalledBody, code int) {
	if body != nil && code >= 400 && body.stalled.Load() {
		panic(http.ErrAbortHandler)
	}
}
