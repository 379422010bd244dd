package cli_test

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestVersion prints the build and where the configured database's
// migrations stand, and answers (exit 0, creating nothing) when there is no
// database to ask.
func TestVersion(t *testing.T) {
	t.Parallel()
	latest := latestMigration(t)
	dir := t.TempDir()
	sqliteURL := "sqlite:" + filepath.Join(dir, "errata.db")
	for _, step := range []struct {
		name  string
		env   []string
		setup func(t *testing.T)
		want  string // the second line
	}{
		{"no SQLite database", nil, nil,
			fmt.Sprintf("schema version: no database (no SQLite database at data/errata.db); this build migrates to %d", latest)},
		{"unreachable PostgreSQL", []string{"ERRATA_DATABASE_URL=postgres://errata@127.0.0.1:1/errata?connect_timeout=5"}, nil,
			"schema version: no database (database unavailable: failed to connect to "},
		{"migrated", []string{"ERRATA_DATABASE_URL=" + sqliteURL}, func(t *testing.T) {
			if res := errata(t, dir, []string{"ERRATA_DATABASE_URL=" + sqliteURL}, "migrate"); res.code != 0 {
				t.Fatalf("migrate: %s", res.stderr)
			}
		}, fmt.Sprintf("schema version %d (sqlite, up to date)", latest)},
		{"migrated by a newer release", []string{"ERRATA_DATABASE_URL=" + sqliteURL}, func(t *testing.T) {
			execSQLite(t, filepath.Join(dir, "errata.db"), fmt.Sprintf(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (%d, 1)`, latest+1))
		}, fmt.Sprintf("schema version %d (sqlite, newer than this build's %d: a newer release migrated it)", latest+1, latest)},
	} {
		t.Run(step.name, func(t *testing.T) {
			if step.setup != nil {
				step.setup(t)
			}
			wd := t.TempDir()
			res := errata(t, wd, step.env, "version")
			l := lines(res.stdout)
			if res.code != 0 || len(l) != 2 || !strings.HasPrefix(l[0], "errata "+testVersion+" (go") {
				t.Fatalf("errata version: code %d, stdout %q, stderr %q; want 0 and two lines, the first starting %q", res.code, res.stdout, res.stderr, "errata "+testVersion)
			}
			if !strings.HasPrefix(l[1], step.want) {
				t.Errorf("second line %q, want it to start %q", l[1], step.want)
			}
			if e := entries(t, wd); len(e) != 0 {
				t.Errorf("errata version created %v", e)
			}
		})
	}
	// An older build leaves a database a newer release migrated as it is,
	// and still starts on it (docs/operations.md, rolling upgrades).
	res := errata(t, dir, []string{"ERRATA_DATABASE_URL=" + sqliteURL}, "migrate")
	if want := fmt.Sprintf("database schema version %d (sqlite, newer than this build's %d: a newer release migrated it)\n", latest+1, latest); res.code != 0 || res.stdout != want {
		t.Fatalf("migrate of a newer schema: code %d, stdout %q, stderr %q; want 0 and %q", res.code, res.stdout, res.stderr, want)
	}
}

// execSQLite runs one statement on a SQLite file.
func execSQLite(t *testing.T, path, stmt string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// TestBadSettings: every bad flag or setting stops the command before it
// touches anything, with exit code 2 and one line naming the setting.
func TestBadSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string // in the one line on stderr
	}{
		{"unknown flag", nil, []string{"serve", "--bogus"}, "--bogus"},
		{"unknown command", nil, []string{"launch"}, "launch"},
		{"bad address flag", nil, []string{"serve", "--addr", "nope"}, "--addr"},
		{"bad address", []string{"ERRATA_ADDR=nope"}, []string{"serve"}, "ERRATA_ADDR"},
		{"bad gRPC address", []string{"ERRATA_GRPC_ADDR=4317"}, []string{"serve"}, "ERRATA_GRPC_ADDR"},
		{"sign-up mode", []string{"ERRATA_SIGNUP=maybe"}, []string{"serve"}, "ERRATA_SIGNUP"},
		{"default plan", []string{"ERRATA_DEFAULT_PLAN=gold"}, []string{"serve"}, "ERRATA_DEFAULT_PLAN"},
		{"retry waits count", []string{"ERRATA_WEBHOOK_RETRY_WAITS=1s,2s"}, []string{"serve"}, "ERRATA_WEBHOOK_RETRY_WAITS"},
		{"retry wait duration", []string{"ERRATA_WEBHOOK_RETRY_WAITS=1s,2s,3s,4s,5s,6s,soon"}, []string{"serve"}, "ERRATA_WEBHOOK_RETRY_WAITS"},
		{"SMTP scheme", []string{"ERRATA_SMTP_URL=http://x"}, []string{"serve"}, "ERRATA_SMTP_URL"},
		{"SMTP port", []string{"ERRATA_SMTP_URL=smtp://127.0.0.1:99999"}, []string{"serve"}, "ERRATA_SMTP_URL"},
		{"SMTP port zero", []string{"ERRATA_SMTP_URL=smtps://mail.example.com:0"}, []string{"serve"}, "ERRATA_SMTP_URL"},
		{"database scheme", []string{"ERRATA_DATABASE_URL=mysql://x"}, []string{"serve"}, "ERRATA_DATABASE_URL"},
		{"database scheme for migrate", []string{"ERRATA_DATABASE_URL=mysql://x"}, []string{"migrate"}, "ERRATA_DATABASE_URL"},
		{"data directory that cannot be made", []string{"ERRATA_DATA_DIR=/proc/errata-nope"}, []string{"serve"}, "ERRATA_DATA_DIR"},
		{"SQLite file in a missing directory", []string{"ERRATA_DATABASE_URL=sqlite:///errata-nope-dir/errata.db"}, []string{"serve"}, "ERRATA_DATABASE_URL"},
		{"SQLite file that is a directory", []string{"ERRATA_DATABASE_URL=sqlite:///proc"}, []string{"serve"}, "ERRATA_DATABASE_URL"},
		{"SQLite URL without a file", []string{"ERRATA_DATABASE_URL=sqlite:"}, []string{"serve"}, "ERRATA_DATABASE_URL"},
		{"info window", []string{"ERRATA_INFO_WINDOW=7m"}, []string{"serve"}, "ERRATA_INFO_WINDOW"},
		{"mail from", []string{"ERRATA_MAIL_FROM=not-an-address"}, []string{"serve"}, "ERRATA_MAIL_FROM"},
		{"base URL", []string{"ERRATA_BASE_URL=ftp://x"}, []string{"serve"}, "ERRATA_BASE_URL"},
		{"roles", []string{"ERRATA_ROLES=api,cook"}, []string{"serve"}, "ERRATA_ROLES"},
		{"log level", []string{"ERRATA_LOG_LEVEL=loud"}, []string{"version"}, "ERRATA_LOG_LEVEL"},
		{"rate limit", []string{"ERRATA_API_RATE_LIMIT=fast"}, []string{"serve"}, "ERRATA_API_RATE_LIMIT"},
		{"set-plan plan", nil, []string{"org", "set-plan", "org_x", "gold"}, "plan"},
		{"user create without password", nil, []string{"user", "create", "--email", "a@example.com"}, "--password=STRING (ERRATA_USER_PASSWORD)"},
		{"healthcheck timeout", nil, []string{"healthcheck", "--timeout", "0s"}, "--timeout"},
		// receive's --addr is its own, not the server's ERRATA_ADDR.
		{"receive port", []string{"ERRATA_ADDR=127.0.0.1:8080"}, []string{"receive", "--addr", "127.0.0.1:80"}, "errata: --addr: port 80"},
		{"receive address", nil, []string{"receive", "--addr", "nope"}, "errata: --addr: \"nope\" is not host:port"},
		{"retention that overflows", nil, []string{"serve", "--retention-days", "1000000"}, "--retention-days"},
		{"receive secret", nil, []string{"receive", "--secret", "notasecret"}, "--secret"},
		{"loadgen key", nil, []string{"loadgen", "--key", "garbage", "--batches", "1"}, "--key"},
		{"loadgen distinct", nil, []string{"loadgen", "--key", "svc_live_x", "--distinct=-1", "--batches", "1"}, "--distinct"},
		{"receive count", nil, []string{"receive", "--count=-1"}, "--count"},
		{"unknown attack", nil, []string{"loadgen", "--attack", "nuke"}, "--attack"},
		{"attack off loopback", nil, []string{"loadgen", "--attack", "slow-body", "--url", "http://192.0.2.1:8080"}, "loopback"},
		{"gzip bomb without key", nil, []string{"loadgen", "--attack", "gzip-bomb"}, "--key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			res := errata(t, dir, tc.env, tc.args...)
			errLines := lines(res.stderr)
			if res.code != 2 || len(errLines) != 1 {
				t.Fatalf("code %d, stderr %q; want code 2 and one line", res.code, res.stderr)
			}
			if !strings.HasPrefix(errLines[0], "errata: ") || !strings.Contains(errLines[0], tc.want) {
				t.Fatalf("stderr %q, want one line starting with %q naming %q", errLines[0], "errata: ", tc.want)
			}
			if res.stdout != "" {
				t.Errorf("stdout %q, want nothing (no usage dump)", res.stdout)
			}
			if e := entries(t, dir); len(e) != 0 {
				t.Errorf("the failed command created %v", e)
			}
		})
	}
}

// TestFlagWinsOverABadVariable: a flag wins over its variable
// (docs/configuration.md), so a bad value in the variable it replaces is
// not refused; without the flag it is. (The runs stop at a bad
// --info-window, after parsing, so that no server starts.)
func TestFlagWinsOverABadVariable(t *testing.T) {
	t.Parallel()
	env := []string{"ERRATA_RETENTION_DAYS=abc", "ERRATA_WEBHOOK_ALLOW_PRIVATE=maybe"}
	for _, args := range [][]string{
		{"serve", "--retention-days", "5", "--webhook-allow-private", "--info-window", "7m"},
		{"serve", "--retention-days=5", "--webhook-allow-private=false", "--info-window=7m"},
	} {
		if res := errata(t, t.TempDir(), env, args...); res.code != 2 || !strings.Contains(res.stderr, "--info-window") {
			t.Errorf("%v with bad ERRATA_RETENTION_DAYS and ERRATA_WEBHOOK_ALLOW_PRIVATE: code %d, stderr %q; want 2 naming only --info-window (the flags win)", args, res.code, res.stderr)
		}
	}
	if res := errata(t, t.TempDir(), env[:1], "serve", "--info-window", "7m"); res.code != 2 || !strings.Contains(res.stderr, "ERRATA_RETENTION_DAYS") {
		t.Errorf("serve with bad ERRATA_RETENTION_DAYS and no flag: code %d, stderr %q; want 2 naming it", res.code, res.stderr)
	}
}

// TestUnresolvableAddress: an address whose host names nothing is a bad
// setting found only when listening (after the database is opened): exit
// code 2 and a last line naming the setting, not the exit 1 of an address in
// use. The host is not a domain name at all, so no resolver is asked.
func TestUnresolvableAddress(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ env, want string }{
		{"ERRATA_ADDR=errata no-host:0", "ERRATA_ADDR"},
		{"ERRATA_GRPC_ADDR=errata no-host:0", "ERRATA_GRPC_ADDR"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			t.Parallel()
			res := serveWith(t, tc.env, tc.want)
			errLines := lines(res.stderr)
			if res.code != 2 || len(errLines) == 0 {
				t.Fatalf("code %d, stderr %q; want code 2", res.code, res.stderr)
			}
			if last := errLines[len(errLines)-1]; !strings.HasPrefix(last, "errata: ") || !strings.Contains(last, tc.want) {
				t.Fatalf("last line %q, want one naming %s", last, tc.want)
			}
		})
	}
}

// serveWith runs serve with setting (NAME=value) for the address named
// want, the HTTP address any free port when want is another.
func serveWith(t *testing.T, setting, want string) result {
	t.Helper()
	env := []string{setting, "ERRATA_BASE_URL=http://127.0.0.1:8080"}
	if want != "ERRATA_ADDR" {
		env = append(env, "ERRATA_ADDR=127.0.0.1:0")
	}
	return errata(t, t.TempDir(), env, "serve")
}

// TestBusyAddress: an address in use stops serve with exit code 1 and a
// line naming the setting, and nothing before it says the server started.
func TestBusyAddress(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { busy.Close() }) // after the parallel subtests, not when this function returns
	for _, tc := range []struct{ env, want string }{
		{"ERRATA_ADDR=" + busy.Addr().String(), "ERRATA_ADDR"},
		{"ERRATA_GRPC_ADDR=" + busy.Addr().String(), "ERRATA_GRPC_ADDR"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			t.Parallel()
			res := serveWith(t, tc.env, tc.want)
			errLines := lines(res.stderr)
			if res.code != 1 || len(errLines) == 0 || !strings.Contains(errLines[len(errLines)-1], tc.want) {
				t.Fatalf("code %d, stderr %q; want code 1 and a last line naming %s", res.code, res.stderr, tc.want)
			}
			if strings.Contains(res.stderr+res.stdout, "errata started") {
				t.Errorf("a server that could not listen said it started: %q", res.stderr)
			}
		})
	}
}

// TestMigrate applies every migration to a fresh database, then nothing on a
// second run.
func TestMigrate(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := []string{"ERRATA_DATA_DIR=" + dir + "/data"}
			if d == store.Postgres {
				env = []string{"ERRATA_DATABASE_URL=" + emptyPostgres(t)}
			}
			first := errata(t, dir, env, "migrate")
			if first.code != 0 {
				t.Fatalf("first migrate: code %d, stderr %s", first.code, first.stderr)
			}
			if n := migrated(t, first.stderr); n < 1 {
				t.Fatalf("first migrate applied %d migrations, want at least 1; stderr: %s", n, first.stderr)
			}
			if want := fmt.Sprintf("database schema version %d (%s, up to date)\n", latestMigration(t), d); first.stdout != want {
				t.Errorf("stdout %q, want %q", first.stdout, want)
			}
			second := errata(t, dir, env, "migrate")
			if second.code != 0 {
				t.Fatalf("second migrate: code %d, stderr %s", second.code, second.stderr)
			}
			if n := migrated(t, second.stderr); n != 0 {
				t.Fatalf("second migrate applied %d migrations, want none; stderr: %s", n, second.stderr)
			}
		})
	}
}

// TestUserCreate bootstraps a user from the command line; the running server
// then signs them in and, being no longer empty, closes sign-up.
func TestUserCreate(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := []string{"ERRATA_DATABASE_URL=" + storetest.URL(t, d)}
			res := errata(t, dir, env, "user", "create", "--email", "a@example.com", "--password", "long enough", "--name", "Ada")
			if res.code != 0 || !strings.HasPrefix(res.stdout, "created user usr_") || !strings.Contains(res.stdout, "(a@example.com)") {
				t.Fatalf("user create: code %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
			}

			dup := errata(t, dir, env, "user", "create", "--email", "A@Example.com", "--password", "another one")
			if l := lines(dup.stderr); dup.code == 0 || len(l) != 1 || !strings.Contains(l[0], "already exists") {
				t.Fatalf("duplicate: code %d, stderr %q; want non-zero and one line saying it already exists", dup.code, dup.stderr)
			}
			short := errata(t, dir, env, "user", "create", "--email", "b@example.com", "--password", "short")
			if l := lines(short.stderr); short.code != 2 || len(l) != 1 || !strings.Contains(l[0], "--password (ERRATA_USER_PASSWORD): must be 8") {
				t.Fatalf("short password: code %d, stderr %q; want 2 and one line naming the password", short.code, short.stderr)
			}
			for _, addr := range []string{"not-an-address", "a\u200b@example.com", "\u0430lice@example.com", "\uff41@example.com"} {
				bad := errata(t, dir, env, "user", "create", "--email", addr, "--password", "long enough")
				if l := lines(bad.stderr); bad.code != 2 || len(l) != 1 || !strings.Contains(l[0], "email") {
					t.Fatalf("bad email %q: code %d, stderr %q; want 2 and one line naming the email", addr, bad.code, bad.stderr)
				}
			}
			// Another spelling of the same address is the same account.
			same := errata(t, dir, env, "user", "create", "--email", " A@EXAMPLE.com", "--password", "another one")
			if same.code == 0 || !strings.Contains(same.stderr, "already exists") {
				t.Fatalf("the same address spelt otherwise: code %d, stderr %q; want it to exist already", same.code, same.stderr)
			}

			s := startServe(t, dir, env...)
			got := s.must(http.StatusOK, "POST", "/v1/auth/sign-in/email", "", map[string]any{"email": "a@example.com", "password": "long enough"})
			if tok, _ := got["token"].(string); tok == "" {
				t.Fatalf("sign-in answer has no token: %v", got)
			}
			if u, _ := got["user"].(map[string]any); u["name"] != "Ada" {
				t.Errorf("user = %v, want the name given to user create", got["user"])
			}
			s.must(http.StatusUnauthorized, "POST", "/v1/auth/sign-in/email", "", map[string]any{"email": "b@example.com", "password": "short"})
			s.must(http.StatusForbidden, "POST", "/v1/auth/sign-up/email", "", map[string]any{"email": "c@example.com", "password": "long enough", "name": "C"})
			if code := s.stop(); code != 0 {
				t.Fatalf("serve exit code %d, want 0; log:\n%s", code, s.log)
			}
		})
	}
}

// migrated sums the migrations the command's log reports.
func migrated(t *testing.T, stderr string) int {
	t.Helper()
	w := newLogWatch()
	_, _ = w.Write([]byte(stderr))
	n := 0
	for _, r := range w.records {
		if r.msg() == "database migrated" {
			f, _ := r["migrations"].(float64)
			n += int(f)
		}
	}
	return n
}

// emptyPostgres creates an empty database (no schema at all) on the test
// server and drops it when the test ends.
func emptyPostgres(t *testing.T) string {
	t.Helper()
	base := storetest.PostgresBase(t)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close() })
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	name := "errata_cli_" + hex.EncodeToString(suffix)
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() { _, _ = admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") })
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", storetest.EnvURL, err)
	}
	u.Path = "/" + name
	return u.String()
}

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}

// TestHelpForNewcomers: "errata help [command]" is --help, and a command
// line that does not parse says where the commands are listed.
func TestHelpForNewcomers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if res := errata(t, dir, nil, "help"); res.code != 0 || !strings.Contains(res.stdout, "Usage: errata <command>") {
		t.Errorf("errata help: exit %d, %q", res.code, res.stdout)
	}
	if res := errata(t, dir, nil, "help", "serve"); res.code != 0 || !strings.Contains(res.stdout, "Usage: errata serve") {
		t.Errorf("errata help serve: exit %d, %q", res.code, res.stdout)
	}
	if res := errata(t, dir, nil); res.code != 2 || !strings.Contains(res.stderr, "errata --help") {
		t.Errorf("errata with no command: exit %d, %q; want 2 naming errata --help", res.code, res.stderr)
	}
}
