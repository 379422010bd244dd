package cli

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReceiveKeepsItsAuthority: `errata receive` started again uses the
// certificate authority it wrote before, so that a server started with
// SSL_CERT_FILE pointing at it goes on trusting the receiver; a run that
// cannot listen writes nothing; an expiring one is replaced.
func TestReceiveKeepsItsAuthority(t *testing.T) {
	dir := t.TempDir()
	c := &receiveCmd{CAFile: filepath.Join(dir, "ca.pem")}
	first, reused, err := c.authority(time.Now())
	if err != nil || reused {
		t.Fatalf("first run: reused %v, %v", reused, err)
	}
	if fi, err := os.Stat(c.CAFile + ".key"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the key file: %v, %v; want mode 0600", fi, err)
	}
	again, reused, err := c.authority(time.Now())
	if err != nil || !reused {
		t.Fatalf("second run: reused %v, %v; want the authority written before", reused, err)
	}
	leaf, err := again.Leaf("localhost")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(leaf.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: first.Pool}); err != nil {
		t.Fatalf("a certificate of the second run is not trusted by the first run's authority: %v", err)
	}
	pem, _ := os.ReadFile(c.CAFile)

	// A busy port: the run fails before it touches the file.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := &receiveCmd{CAFile: c.CAFile, Addr: ln.Addr().String()}
	if err := busy.Run(&env{ctx: context.Background(), stdout: &bytes.Buffer{}}); err == nil || !strings.Contains(err.Error(), "listen") {
		t.Fatalf("receive on a busy port: %v, want a listen error", err)
	}
	if now, _ := os.ReadFile(c.CAFile); !bytes.Equal(now, pem) {
		t.Fatal("a run that could not listen replaced the authority")
	}

	// An address that is not host:port, or a port no webhook URL can
	// name, is a usage error (exit 2) before anything is touched.
	for _, addr := range []string{"nope", "127.0.0.1:80", "127.0.0.1:1023", "127.0.0.1:65536", "127.0.0.1:x"} {
		bad := &receiveCmd{CAFile: c.CAFile, Addr: addr}
		var ue usageError
		if err := bad.Run(&env{ctx: context.Background(), stdout: &bytes.Buffer{}}); !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "--addr: ") {
			t.Errorf("receive --addr %s: %v, want a usage error naming --addr", addr, err)
		}
	}
	if now, _ := os.ReadFile(c.CAFile); !bytes.Equal(now, pem) {
		t.Fatal("a run refused for its address replaced the authority")
	}

	// An authority with less than a day left (a leaf's life) is replaced.
	late, reused, err := c.authority(first.Cert.NotAfter.Add(-24 * time.Hour))
	if err != nil || reused || late.Cert.Equal(first.Cert) {
		t.Fatalf("near expiry: reused %v, %v; want a new authority", reused, err)
	}
	if leaf, err := late.Leaf("localhost"); err != nil {
		t.Fatal(err)
	} else if cert, _ := x509.ParseCertificate(leaf.Certificate[0]); cert.NotAfter.After(late.Cert.NotAfter) {
		t.Fatalf("a leaf valid until %v outlives its authority (%v)", cert.NotAfter, late.Cert.NotAfter)
	}

	// A key others may read is not used again (nor trusted to be this
	// user's), and a link planted at the key's path is replaced, not
	// followed.
	if err := os.Chmod(c.CAFile+".key", 0o644); err != nil {
		t.Fatal(err)
	}
	if _, reused, err := c.authority(time.Now()); err != nil || reused {
		t.Fatalf("a key readable by others: reused %v, %v; want a new authority", reused, err)
	}
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	planted := &receiveCmd{CAFile: filepath.Join(dir, "planted.pem")}
	if err := os.Symlink(victim, planted.CAFile+".key"); err != nil {
		t.Fatal(err)
	}
	if _, reused, err := planted.authority(time.Now()); err != nil || reused {
		t.Fatalf("a planted link: reused %v, %v", reused, err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatal("writing the key followed a link planted at its path")
	}
	if fi, err := os.Lstat(planted.CAFile + ".key"); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the key file after a planted link: %v, %v; want a regular file of mode 0600", fi, err)
	}
}
