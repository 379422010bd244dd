package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/search"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// wordGroups are the titles of the groups of projectID that query finds,
// sorted, as the group list and the ticket-less search read them.
func wordGroups(t *testing.T, db *store.DB, projectID, query string) []string {
	t.Helper()
	q, err := search.Parse(query, search.Groups, now)
	if err != nil {
		t.Fatalf("parse %q: %v", query, err)
	}
	var out []string
	for _, o := range []store.Order{store.OrderNewest, store.OrderEventCount} {
		gs, err := db.Read().ListGroupsBy(context.Background(), projectID, store.GroupFilter{Query: q}, o, store.Keyset{}, 100)
		if err != nil {
			t.Fatalf("query %q: %v", query, err)
		}
		var got []string
		for _, g := range gs {
			got = append(got, g.Title)
		}
		sort.Strings(got)
		if o != store.OrderNewest && !slices.Equal(got, out) {
			t.Errorf("query %q: sorted by events %q, newest first %q", query, got, out)
		}
		out = got
	}
	return out
}

// TestSearchWords: a free word matches any substring of a group's title,
// culprit or latest sample message, in any case, through the trigram
// indexes of migration 00052 (and LIKE for words under three characters);
// a group whose title changes is found by its new words and no longer by
// its old ones; a deleted group is gone from the index.
func TestSearchWords(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		c := db.Write()
		p := seedProject(t, c)
		other := seedProject(t, c)
		mk := func(projectID, title, culprit, message string) store.Group {
			t.Helper()
			g := store.Group{ID: id.New(id.Group), ProjectID: projectID, Service: "api", Fingerprint: title, Status: store.GroupUnresolved,
				Title: title, Culprit: culprit, SampleMessage: message, FirstSeen: now, LastSeen: now, EventCount: 1, UpdatedAt: now}
			if err := c.InsertGroup(ctx, g); err != nil {
				t.Fatal(err)
			}
			return g
		}
		pay := mk(p.ID, "PaymentTimeoutError: gateway", "billing.charge_card", "card 4242 declined after 30s")
		disk := mk(p.ID, "OSError: disk full", "storage/Writer.flush", "Größe überschritten: 100% used")
		mk(other.ID, "PaymentTimeoutError: gateway", "billing.charge_card", "card declined")
		for _, c := range []struct {
			query string
			want  []string
		}{
			{"timeout", []string{pay.Title}},              // inside a word of the title
			{"TIMEOUTERR", []string{pay.Title}},           // any case
			{"arge_ca", []string{pay.Title}},              // inside the culprit, with its punctuation
			{"Writer.fl", []string{disk.Title}},           // culprit
			{"4242", []string{pay.Title}},                 // latest sample message
			{`"declined after"`, []string{pay.Title}},     // a phrase
			{"GRÖSSE", nil},                               // ß is not ss
			{"größe ÜBERSCHRITTEN", []string{disk.Title}}, // any case beyond ASCII, every word
			{"100%", []string{disk.Title}},                // LIKE's wildcards are plain characters
			{"0_", nil},
			{"OR", []string{disk.Title, pay.Title}}, // a word too short for a trigram
			{"30s", []string{pay.Title}},
			{"gateway flush", nil},                       // every word must hold
			{"!timeout", []string{disk.Title}},           // negation
			{"charge_card full", nil},                    // two columns of two groups
			{"full disk", []string{disk.Title}},          // any order
			{"gateway billing", []string{pay.Title}},     // title and culprit of one group
			{"timeout service:api", []string{pay.Title}}, // with other terms
			{`"gateway" "card\"s"`, nil},                 // FTS syntax is plain text
			{"nothing-like-it", nil},
		} {
			if got := wordGroups(t, db, p.ID, c.query); !slices.Equal(got, c.want) {
				t.Errorf("query %q = %q, want %q", c.query, got, c.want)
			}
		}

		// A new title, culprit and message are found by their words.
		pay.Title, pay.Culprit, pay.SampleMessage = "CircuitOpen: upstream refused", "net.dial", "retry budget spent"
		if err := c.UpdateGroup(ctx, pay); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			query string
			want  []string
		}{
			{"circuitopen", []string{pay.Title}},
			{"net.dial", []string{pay.Title}},
			{"budget", []string{pay.Title}},
			{"timeout", nil},
			{"4242", nil},
			{"arge_ca", nil},
			{"!timeout", []string{pay.Title, disk.Title}},
		} {
			if got := wordGroups(t, db, p.ID, c.query); !slices.Equal(got, c.want) {
				t.Errorf("after the update: query %q = %q, want %q", c.query, got, c.want)
			}
		}
		// An update that keeps the words (processing's usual one) keeps them found.
		pay.EventCount++
		if err := c.UpdateGroup(ctx, pay); err != nil {
			t.Fatal(err)
		}
		if got := wordGroups(t, db, p.ID, "upstream"); !slices.Equal(got, []string{pay.Title}) {
			t.Errorf("after a count update: upstream = %q", got)
		}
		// Deleting a project's groups takes them out of the SQLite index
		// (PostgreSQL's index is the table's own).
		if err := c.DeleteProject(ctx, other.ID); err != nil {
			t.Fatal(err)
		}
		if db.Dialect() == store.SQLite {
			var found int
			if err := c.QueryRowForTest(ctx, `SELECT COUNT(*) FROM group_search WHERE group_search MATCH '"gateway"'`).Scan(&found); err != nil {
				t.Fatal(err)
			}
			if found != 0 {
				t.Errorf("after deleting a project: %d index rows found by gateway, want 0", found)
			}
		}
		again := mk(p.ID, "gateway reset", "", "")
		if got := wordGroups(t, db, p.ID, "gateway"); !slices.Equal(got, []string{again.Title}) {
			t.Errorf("a group added after a delete: gateway = %q", got)
		}
	})
}

// TestSearchIndexMigration: migration 00052 indexes the groups written
// before it, and 00056's search message starts as their sample message;
// the rollbacks keep the groups (the group is written at the current
// schema, which the store's statements need, then rolled back past 00052).
func TestSearchIndexMigration(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		c := db.Write()
		p := seedProject(t, c)
		g := store.Group{ID: id.New(id.Group), ProjectID: p.ID, Service: "api", Fingerprint: "a", Status: store.GroupUnresolved,
			Title: "KeyError: 'tenant'", Culprit: "app.views.load", SampleMessage: "no tenant for host", FirstSeen: now, LastSeen: now, UpdatedAt: now}
		if err := c.InsertGroup(ctx, g); err != nil {
			t.Fatal(err)
		}
		if err := db.MigrateDownTo(ctx, 51); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"keyerr", "views.lo", "FOR HOST"} {
			if got := wordGroups(t, db, p.ID, q); !slices.Equal(got, []string{g.Title}) {
				t.Errorf("migrated: query %q = %q", q, got)
			}
		}
		g.Title = "KeyError: 'region'"
		if err := c.UpdateGroup(ctx, g); err != nil {
			t.Fatal(err)
		}
		if got := wordGroups(t, db, p.ID, "region"); !slices.Equal(got, []string{g.Title}) {
			t.Errorf("migrated, then retitled: region = %q", got)
		}
	})
}

// TestSearchAfterBackup: SQLite's full-text index names groups by their
// rowid, so a backup (VACUUM INTO) and a VACUUM must keep those rowids,
// gaps and all, for the words to find the same groups in the copy.
func TestSearchAfterBackup(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, store.SQLite)
	c := db.Write()
	p, gone := seedProject(t, c), seedProject(t, c)
	var want []string
	for i := range 40 {
		projectID := p.ID
		if i%2 == 1 {
			projectID = gone.ID // deleted below: gaps between p's rowids
		}
		g := store.Group{ID: id.New(id.Group), ProjectID: projectID, Service: "api", Fingerprint: fmt.Sprint(i), Status: store.GroupUnresolved,
			Title: fmt.Sprintf("Error number%03d", i), Culprit: "c", SampleMessage: "m", FirstSeen: now, LastSeen: now, UpdatedAt: now}
		if err := c.InsertGroup(ctx, g); err != nil {
			t.Fatal(err)
		}
		if projectID == p.ID && i%4 == 0 {
			want = append(want, g.Title)
		}
	}
	if err := c.DeleteProject(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.ExecForTest(ctx, `VACUUM`); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "copy.db")
	if _, err := store.Backup(ctx, store.Options{URL: "sqlite:" + db.Path()}, dest); err != nil {
		t.Fatal(err)
	}
	copied, err := store.Open(ctx, store.Options{URL: "sqlite:" + dest})
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	for _, d := range []*store.DB{db, copied} {
		var got []string
		for i := 0; i < 40; i += 4 {
			got = append(got, wordGroups(t, d, p.ID, fmt.Sprintf("number%03d", i))...)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the words find %q, want %q", d.Path(), got, want)
		}
	}
}
