// Package testca makes certificate authorities for tests, so that webhook
// receivers on loopback serve real TLS that the code under test verifies:
// through a pool (Pool), a child process's SSL_CERT_FILE (PEM), or this
// process's system pool (InstallSystem). `errata receive` uses it too: a
// local receiver for trying channels out is a test of a kind.
package testca

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// CA is a certificate authority valid from an hour ago for a day.
type CA struct {
	Cert *x509.Certificate
	// PEM is Cert, PEM-encoded: the content of an SSL_CERT_FILE.
	PEM []byte
	// Pool trusts Cert alone.
	Pool *x509.CertPool
	key  *ecdsa.PrivateKey
}

// New makes a CA named name, valid from an hour ago for a day.
func New(name string) (*CA, error) { return NewFor(name, 24*time.Hour) }

// NewFor makes a CA named name, valid from an hour ago for valid.
func NewFor(name string, valid time.Duration) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: name},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(valid),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &CA{Cert: cert, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), Pool: pool, key: key}, nil
}

// KeyPEM is the CA's private key, PEM-encoded, for Load.
func (ca *CA) KeyPEM() ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(ca.key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

// Load reads a CA written before (PEM and KeyPEM), so that a server that
// trusts it goes on trusting the certificates it issues.
func Load(certPEM, keyPEM []byte) (*CA, error) {
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return nil, errors.New("testca: not a PEM certificate and key")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, err
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return nil, err
	}
	if !cert.IsCA || !key.PublicKey.Equal(cert.PublicKey) {
		return nil, errors.New("testca: the key is not the certificate authority's")
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &CA{Cert: cert, PEM: certPEM, Pool: pool, key: key}, nil
}

// Leaf issues a server certificate for 127.0.0.1, ::1 and dnsNames, valid
// for a day or until the CA expires.
func (ca *CA) Leaf(dnsNames ...string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "webhook receiver"},
		NotBefore: now.Add(-time.Hour), NotAfter: earliest(now.Add(24*time.Hour), ca.Cert.NotAfter),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, DNSNames: dnsNames}
	der, err := x509.CreateCertificate(rand.Reader, tpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// InstallSystem makes this process trust the CA: it writes the CA, after
// what SSL_CERT_FILE already names, to a file in dir and points
// SSL_CERT_FILE at it. crypto/x509 reads SSL_CERT_FILE once, when a
// certificate is first verified with the system pool, so this must come
// before that.
func (ca *CA) InstallSystem(dir string) error {
	pemBytes := ca.PEM
	if prev := os.Getenv("SSL_CERT_FILE"); prev != "" { // keep what the environment already trusts
		if b, err := os.ReadFile(prev); err == nil {
			pemBytes = append(append(b, '\n'), pemBytes...)
		}
	}
	path := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(path, pemBytes, 0o600); err != nil {
		return err
	}
	return os.Setenv("SSL_CERT_FILE", path)
}

// earliest is the earlier of a and b.
func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// serial is a random certificate serial number.
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return n
}
