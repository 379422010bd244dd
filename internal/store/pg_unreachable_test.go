package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestPostgresRefusingConnectionsIsUnavailable: a server that refuses new
// connections with a FATAL at start-up (here: the database no longer
// accepts connections) makes store calls unavailable (503), not internal
// errors (500).
func TestPostgresRefusingConnectionsIsUnavailable(t *testing.T) {
	u := storetest.URL(t, store.Postgres)
	db := openURL(t, u)
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(parsed.Path, "/")
	admin, err := sql.Open("pgx", storetest.PostgresBase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, q := range []string{
		fmt.Sprintf(`ALTER DATABASE %s ALLOW_CONNECTIONS false`, name),
		fmt.Sprintf(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '%s'`, name),
	} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// The first call may find its connection terminated (57P01); the next
	// ones connect again and are refused (55000).
	for range 3 {
		_, err = db.Read().UserByID(context.Background(), "usr_none")
		if !store.IsUnavailable(err) {
			t.Fatalf("a store call while the database refuses connections: %v, want unavailable", err)
		}
	}
}

// TestPostgresConnectTimeout: a server that accepts the TCP connection and
// never answers (paused, partitioned) fails the connection after the
// connect timeout, as unreachable, rather than holding the caller until
// its own deadline.
func TestPostgresConnectTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // accept and say nothing
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*store.PGConnectTimeout)
	defer cancel()
	_, err = store.Open(ctx, store.Options{URL: "postgres://postgres@" + ln.Addr().String() + "/errata?sslmode=disable"})
	if err == nil {
		t.Fatal("opened a database that never answers")
	}
	if ctx.Err() != nil {
		t.Fatalf("the connection waited for the caller's deadline (%v): %v", 10*store.PGConnectTimeout, err)
	}
}
