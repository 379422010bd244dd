package loadgen

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/errata-dev/errata/internal/sentry"
)

// useDSN fills the sentry target's URL, key and endpoint from c.DSN.
func (c *Config) useDSN() error {
	if c.DSN == "" {
		return errors.New("--dsn is required with --target sentry (the dsn of the key's creation answer)")
	}
	d, err := sentry.ParseDSN(c.DSN)
	if err != nil {
		return fmt.Errorf("--dsn: %w", err)
	}
	u, _ := url.Parse(c.DSN) // ParseDSN parsed it
	base := strings.TrimSuffix(u.Path, "/")
	base = base[:strings.LastIndexByte(base, '/')]
	c.URL, c.Key = u.Scheme+"://"+u.Host+base, d.Key
	c.sentryEndpoint = c.URL + "/api/" + strconv.FormatInt(d.Number, 10) + "/envelope/"
	switch c.SentryAuth {
	case "", SentryAuthHeader:
		c.SentryAuth = SentryAuthHeader
	case SentryAuthQuery:
		c.sentryEndpoint += "?sentry_version=7&sentry_client=errata.loadgen%2F1&sentry_key=" + url.QueryEscape(d.Key)
	default:
		return fmt.Errorf("--sentry-auth must be header or query, got %q", c.SentryAuth)
	}
	return nil
}

// encode appends batch b in the target's body format to dst and returns it
// with the events' encoded size, noting where the timestamps went in
// stamps unless it is nil.
func (c *Config) encode(g *Generator, dst []byte, b *Batch, stamps *[]stamp) ([]byte, int) {
	switch c.Target {
	case TargetJSONL:
		return encodeJSONL(dst, b, stamps)
	case TargetSentry:
		return g.encodeEnvelope(dst, b, stamps)
	}
	return encodeBatch(dst, b, stamps)
}
