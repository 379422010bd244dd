// Package auth signs people up and in, keeps their sessions, and makes and
// checks the project API keys that ingestion takes.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Argon2 are argon2id parameters.
type Argon2 struct {
	MemoryKiB uint32
	Time      uint32
	Threads   uint8
}

// DefaultArgon2 follows RFC 9106's second recommended option in memory
// (64 MiB) with two passes, which takes about 100 ms on one core here.
var DefaultArgon2 = Argon2{MemoryKiB: 64 * 1024, Time: 2, Threads: 2}

// Hasher hashes and checks passwords with argon2id. Hashing is memory-hungry,
// so a semaphore bounds how many run at once: a burst of sign-ins queues
// instead of exhausting memory.
type Hasher struct {
	params Argon2
	sem    chan struct{}
}

// NewHasher returns a Hasher with params, running at most one hash per core.
func NewHasher(params Argon2) *Hasher {
	return &Hasher{params: params, sem: make(chan struct{}, runtime.GOMAXPROCS(0))}
}

var b64 = base64.RawStdEncoding

// Hash returns the PHC-format argon2id hash of password.
func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, h.params.Time, h.params.MemoryKiB, h.params.Threads, 32)
	h.release()
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, h.params.MemoryKiB, h.params.Time, h.params.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// Dummy returns a well-formed hash of no password: a random salt and key
// under the current parameters. Verifying against it costs exactly what
// verifying a real hash costs, yet making it costs nothing, so a new Service
// does not spend an argon2 run (~100 ms, 64 MiB) at every start.
func (h *Hasher) Dummy() string {
	salt, key := make([]byte, 16), make([]byte, 32)
	_, _ = rand.Read(salt)
	_, _ = rand.Read(key)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, h.params.MemoryKiB, h.params.Time, h.params.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// Verify reports whether password matches encoded, comparing in constant
// time. The parameters come from encoded, so old hashes keep working after
// the defaults change.
func (h *Hasher) Verify(ctx context.Context, encoded, password string) (bool, error) {
	p, salt, want, err := parseHash(encoded)
	if err != nil {
		return false, err
	}
	if err := h.acquire(ctx); err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Threads, uint32(len(want)))
	h.release()
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

func (h *Hasher) acquire(ctx context.Context) error {
	select {
	case h.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *Hasher) release() { <-h.sem }

var errBadHash = errors.New("auth: malformed password hash")

func parseHash(s string) (Argon2, []byte, []byte, error) {
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return Argon2{}, nil, nil, errBadHash
	}
	var v int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return Argon2{}, nil, nil, errBadHash
	}
	var p Argon2
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil {
		return Argon2{}, nil, nil, errBadHash
	}
	salt, err1 := b64.DecodeString(parts[4])
	key, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(key) == 0 {
		return Argon2{}, nil, nil, errBadHash
	}
	return p, salt, key, nil
}
