package cli

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/testca"
	"github.com/errata-dev/errata/webhook"
)

// receiveCmd is `errata receive`: a webhook receiver on this machine for
// trying channels out (the README's quick start), as `stripe listen` is for
// Stripe. It serves https with a certificate authority of its own, written
// to --ca-file, which a server trusts with SSL_CERT_FILE (and, for a
// loopback address, ERRATA_WEBHOOK_ALLOW_PRIVATE=true).
type receiveCmd struct {
	Addr   string `default:"127.0.0.1:9443" help:"Address to receive on (a port from 1024 up: webhook URLs allow no other but 443)."`
	CAFile string `name:"ca-file" default:"./errata-receiver-ca.pem" help:"Where to write the certificate authority the server must trust (SSL_CERT_FILE), its key beside it (.key); one written before is used again while it is valid, so a running server keeps trusting the receiver."`
	Secret string `env:"ERRATA_RECEIVER_SECRET" help:"The channel's signing secret (whsec_…): deliveries are verified with it and refused (401) when they do not verify."`
	Count  int    `default:"0" help:"Exit after this many deliveries (0: run until interrupted)."`
}

// checkAddr refuses an --addr that is not host:port, or whose port no
// webhook URL can name (the server's channels take 443 or 1024-65535; 0
// picks a free one, printed).
func (c *receiveCmd) checkAddr() error {
	_, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return usageError{fmt.Errorf("--addr: %q is not host:port (such as 127.0.0.1:9443)", c.Addr)}
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 || n != 0 && n != 443 && n < 1024 {
		return usageError{fmt.Errorf("--addr: port %s cannot be in a webhook URL: use 443 or 1024-65535", port)}
	}
	return nil
}

func (c *receiveCmd) Run(e *env) error {
	if err := c.checkAddr(); err != nil {
		return err
	}
	if c.Count < 0 {
		return usageError{fmt.Errorf("--count: %d is negative (0 runs until interrupted)", c.Count)}
	}
	if c.Secret != "" && !strings.HasPrefix(c.Secret, notify.SecretPrefix) {
		// Every delivery would be refused (401) for a signature that
		// cannot verify.
		return usageError{fmt.Errorf("--secret: not a channel's signing secret (%s…)", notify.SecretPrefix)}
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return fmt.Errorf("receive: listen on %s: %w (choose another with --addr)", c.Addr, err)
	}
	ca, reused, err := c.authority(time.Now())
	if err != nil {
		ln.Close()
		return err
	}
	leaf, err := ca.Leaf("localhost")
	if err != nil {
		ln.Close()
		return err
	}
	url := "https://" + ln.Addr().String() + "/hook"
	fmt.Fprintf(e.stdout, "receiving webhook deliveries at %s\n", url)
	if reused {
		fmt.Fprintf(e.stdout, "with the certificate authority of %s (until %s): a server already trusting it needs no restart\n", c.CAFile, ca.Cert.NotAfter.Local().Format(time.DateTime))
	} else {
		fmt.Fprintf(e.stdout, "with a new certificate authority in %s: start (or restart) the server trusting it: SSL_CERT_FILE=%s ERRATA_WEBHOOK_ALLOW_PRIVATE=true errata serve\n", c.CAFile, c.CAFile)
	}
	if c.Secret == "" {
		fmt.Fprintln(e.stdout, "signatures are not checked: pass --secret whsec_… (the channel's signing_secret) to verify them")
	}
	done := make(chan struct{})
	var mu sync.Mutex
	n := 0
	srv := &http.Server{TLSConfig: &tls.Config{Certificates: []tls.Certificate{leaf}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			if err != nil {
				return
			}
			verdict := "not verified (no --secret)"
			status := http.StatusOK
			if c.Secret != "" {
				if err := webhook.Verify(body, r.Header.Get("Service-Signature"), time.Now(), c.Secret); err != nil {
					verdict, status = "REFUSED: "+err.Error(), http.StatusUnauthorized
				} else {
					verdict = "signature verified"
				}
			}
			what := describe(body)
			// The answer goes out before the last delivery ends the
			// receiver: the sender must see its 2xx, not a closed connection.
			w.WriteHeader(status)
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			mu.Lock()
			defer mu.Unlock()
			n++
			fmt.Fprintf(e.stdout, "%s %s %s (%s) %s\n", time.Now().UTC().Format(time.TimeOnly), r.Header.Get("Service-Event"),
				r.Header.Get("Service-Delivery-Id"), verdict, what)
			if c.Count > 0 && n == c.Count {
				close(done)
			}
		})}
	errc := make(chan error, 1)
	go func() { errc <- srv.ServeTLS(ln, "", "") }()
	select {
	case <-e.ctx.Done():
	case <-done:
	case err := <-errc:
		return err
	}
	// Shutdown lets the handler that counted the last delivery finish its
	// answer; Close would cut it and the sender would record a failure.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		_ = srv.Close()
	}
	return nil
}

// describe summarises a delivery body in a few words: a ticket's severity
// and title, a digest's ticket count, a test's channel.
func describe(body []byte) string {
	ev, err := webhook.ParseEvent(body)
	if err != nil {
		return fmt.Sprintf("%d bytes", len(body))
	}
	var b struct {
		Ticket struct{ Severity, Title string }
		Digest struct {
			TicketCount int `json:"ticket_count"`
		}
		Channel struct{ Name string }
	}
	_ = json.Unmarshal(ev.Raw, &b)
	switch ev.Type {
	case webhook.EventTicket:
		return fmt.Sprintf("%s ticket: %s", b.Ticket.Severity, b.Ticket.Title)
	case webhook.EventDigest:
		return fmt.Sprintf("digest of %s with %d tickets", ev.Project.Name, b.Digest.TicketCount)
	case webhook.EventTest:
		return fmt.Sprintf("test of channel %q", b.Channel.Name)
	}
	return ev.Type
}

// receiveCAValid is how long the receiver's certificate authority is
// valid, and caReuseMargin how long one written before must still be
// valid to be used again: a day, a leaf's life.
const (
	receiveCAValid = 30 * 24 * time.Hour
	caReuseMargin  = 25 * time.Hour
)

// authority returns the certificate authority of --ca-file and its key
// (--ca-file with ".key") when both were written before by this user (the
// key a regular file of this user's, readable by no one else) and the CA
// is valid for caReuseMargin more, so that a receiver started again keeps
// the trust of a server started with SSL_CERT_FILE; else it writes a new
// one and reports reused false. Files are written to a new file and
// renamed into place, so that a link planted at either path is replaced,
// not followed.
func (c *receiveCmd) authority(now time.Time) (ca *testca.CA, reused bool, err error) {
	keyFile := c.CAFile + ".key"
	if keyPEM, ok := readOwnKey(keyFile); ok {
		if certPEM, err := os.ReadFile(c.CAFile); err == nil {
			if ca, err := testca.Load(certPEM, keyPEM); err == nil && now.Add(caReuseMargin).Before(ca.Cert.NotAfter) {
				return ca, true, nil
			}
		}
	}
	if ca, err = testca.NewFor("errata receive", receiveCAValid); err != nil {
		return nil, false, err
	}
	keyPEM, err := ca.KeyPEM()
	if err != nil {
		return nil, false, err
	}
	if err := os.MkdirAll(filepath.Dir(c.CAFile), 0o755); err != nil {
		return nil, false, err
	}
	if err := replaceFile(keyFile, keyPEM, 0o600); err != nil {
		return nil, false, fmt.Errorf("receive: write the key of --ca-file: %w", err)
	}
	if err := replaceFile(c.CAFile, ca.PEM, 0o644); err != nil {
		return nil, false, fmt.Errorf("receive: write --ca-file: %w", err)
	}
	return ca, false, nil
}

// readOwnKey reads path when it is a regular file of this user's that no
// one else may read or write, checked on the file read (opened without
// following a link), not on a path that could be swapped in between.
func readOwnKey(path string) ([]byte, bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 {
		return nil, false
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	return b, err == nil
}

// replaceFile writes data to a new file beside path, with mode perm, and
// renames it to path.
func replaceFile(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // once renamed, there is nothing to remove
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
