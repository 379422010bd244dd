package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"time"
)

// healthcheckCmd asks a running server whether it is alive, for container
// health checks: the final image has no shell, curl or wget, and needs none.
type healthcheckCmd struct {
	Addr    string        `name:"addr" env:"ERRATA_ADDR" default:"127.0.0.1:8080" help:"Address the server listens on (its ERRATA_ADDR; 0.0.0.0 and :: are asked on loopback)."`
	Ready   bool          `help:"Ask /readyz (can it take traffic: the database answers) instead of /healthz (is it alive)."`
	Timeout time.Duration `default:"5s" help:"How long to wait for the answer."`
}

func (c *healthcheckCmd) Run(e *env) error {
	base, err := localURL(c.Addr)
	if err != nil {
		return usageError{fmt.Errorf("--addr: %w", err)}
	}
	if c.Timeout <= 0 { // no time to answer: every check would fail
		return usageError{fmt.Errorf("--timeout: %s is not a positive duration", c.Timeout)}
	}
	path := "/healthz"
	if c.Ready {
		path = "/readyz"
	}
	url := base + path
	ctx, cancel := context.WithTimeout(e.ctx, c.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	// No proxy from the environment: the server is on this host.
	client := &http.Client{Transport: &http.Transport{Proxy: nil}}
	res, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16))
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: GET %s answered %s", url, res.Status)
	}
	fmt.Fprintf(e.stdout, "GET %s: %s\n", url, res.Status)
	return nil
}

// localURL is the base URL a command on this host reaches a server
// listening on addr (its ERRATA_ADDR) with: one listening on every
// address is reached on loopback.
func localURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("%q is not host:port", addr)
	}
	if a, err := netip.ParseAddr(host); err == nil && a.IsUnspecified() {
		host = "127.0.0.1"
		if a.Is6() {
			host = "::1"
		}
	} else if host == "" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port), nil
}
