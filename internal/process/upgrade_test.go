package process_test

import (
	"context"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/process"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// pyTrace is a Django error whose exception value takes part in the
// version 2 fingerprint but not in version 1's: the two versions give it
// different fingerprints.
func pyTrace(value string) string {
	return "Traceback (most recent call last):\n" +
		"  File \"/srv/app/shop/views.py\", line 41, in checkout\n    order.pay()\n" +
		"  File \"/srv/app/shop/models.py\", line 88, in pay\n    db.connect()\n" +
		"psycopg2.OperationalError: could not connect to server: " + value
}

// TestUpgradeKeepsGroupsOfTheOlderVersion: groups made by fingerprint
// version 1 keep receiving the events whose version-1 fingerprint matches
// them after the algorithm changed: no new group, no new ticket (issue 12).
// Errors no older group matches make groups of the current version.
func TestUpgradeKeepsGroupsOfTheOlderVersion(t *testing.T) {
	if grouping.Version < 2 {
		t.Skip("only one fingerprint version")
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		refused := ingest.Event{Level: ingest.Error, Message: "connection failed", StackTrace: pyTrace("Connection refused"), Service: "api"}
		timedOut := ingest.Event{Level: ingest.Error, Message: "connection failed", StackTrace: pyTrace("Connection timed out"), Service: "api"}
		// As a release with version 1 stored it: one group for both (version
		// 1 merges them: same type and frames), with an open ticket.
		in := grouping.Input{Message: refused.Message, StackTrace: refused.StackTrace}
		v1, ok := grouping.FingerprintVersion(in, 1)
		if !ok {
			t.Fatal("version 1 is not computable")
		}
		if cur := grouping.Fingerprint(in); cur.Fingerprint == v1.Fingerprint {
			t.Fatal("the two versions agree on this event: the test proves nothing")
		}
		now := e.clock.Now()
		old := store.Group{ID: id.New(id.Group), ProjectID: e.prj, Service: "api", Fingerprint: v1.Fingerprint, FingerprintVersion: 1,
			FingerprintRule: string(v1.Rule), Title: v1.Title, Status: store.GroupUnresolved, FirstSeen: now, LastSeen: now, EventCount: 7,
			Level: int(ingest.Error), UpdatedAt: now}
		tk := store.Ticket{ID: id.New(id.Ticket), ProjectID: e.prj, GroupID: old.ID, Severity: "high", Status: store.TicketOpen, Reason: store.ReasonNew,
			Title: old.Title, FirstSeen: now, CreatedAt: now, UpdatedAt: now}
		old.TicketID = tk.ID
		err := db.Tx(ctx, func(c *store.Conn) error {
			if err := c.InsertGroup(ctx, old); err != nil {
				return err
			}
			return c.InsertTicket(ctx, tk)
		})
		if err != nil {
			t.Fatal(err)
		}

		e.clock.Add(time.Minute)
		e.send(refused, timedOut, refused)
		gs := e.groups()
		if len(gs) != 1 || len(e.seen) != 0 {
			t.Fatalf("after the upgrade: %d groups, ticket events %v; want the old group only and no ticket", len(gs), e.seen)
		}
		if gs[0].ID != old.ID || gs[0].EventCount != 10 || gs[0].FingerprintVersion != 1 || gs[0].Fingerprint != v1.Fingerprint {
			t.Fatalf("group = %+v, want the version-1 group with 10 events", gs[0])
		}

		// An error no version-1 group knows makes a version-2 group.
		fresh := ingest.Event{Level: ingest.Error, Message: "boom", StackTrace: pyTrace("Connection reset"), Service: "worker"}
		e.send(fresh)
		gs = e.groups()
		if len(gs) != 2 || len(e.seen) != 1 {
			t.Fatalf("a new error: %d groups, %d ticket events; want 2 and 1", len(gs), len(e.seen))
		}
		for _, g := range gs {
			if g.ID != old.ID && g.FingerprintVersion != grouping.Version {
				t.Errorf("new group of version %d, want %d", g.FingerprintVersion, grouping.Version)
			}
		}

		// A fresh processor (another release's process) routes the same way.
		p2 := process.New(db, process.Options{Now: e.clock.Now, InfoWindow: time.Hour})
		e.queue(timedOut)
		if err := p2.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		g, err := db.Read().GroupByID(ctx, old.ID)
		if err != nil || g.EventCount != 11 {
			t.Fatalf("old group after another processor: %d events, %v; want 11", g.EventCount, err)
		}
	})
}

// paylibTrace is a JavaScript error thrown in a dependency, as a source map
// renders it: the SDK flagged its frames in-app (the bundle was).
const paylibTrace = "TypeError: card declined by paylib\n" +
	"    at charge (node_modules/paylib/index.js:2:30)\n" +
	"    at checkout (src/main.js:4:3)\n" +
	"    at main (src/main.js:9:1)"

// TestUpgradeKeepsGroupsOfDependencyFrames: a source map that puts a
// frame the SDK flagged in-app into a dependency makes it 'd' (not in-app
// from grouping version 6); a group made by version 5, which read the
// SDK's 'y', keeps the event instead of a new group and ticket opening for
// a known error on upgrade.
func TestUpgradeKeepsGroupsOfDependencyFrames(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		trace := paylibTrace
		v5, ok := grouping.FingerprintVersion(grouping.Input{StackTrace: trace, InApp: "yyy"}, 5)
		if !ok {
			t.Fatal("version 5 is not computable")
		}
		if d5, _ := grouping.FingerprintVersion(grouping.Input{StackTrace: trace, InApp: "dyy"}, 5); d5.Fingerprint != v5.Fingerprint {
			t.Fatal("version 5 reads 'd' otherwise than the SDK's 'y'")
		}
		if cur := grouping.Fingerprint(grouping.Input{StackTrace: trace, InApp: "dyy"}); cur.Fingerprint == v5.Fingerprint {
			t.Fatal("the current version still reads the dependency's frame as in-app: the test proves nothing")
		}
		now := e.clock.Now()
		old := store.Group{ID: id.New(id.Group), ProjectID: e.prj, Service: "web", Fingerprint: v5.Fingerprint, FingerprintVersion: 5,
			FingerprintRule: string(v5.Rule), Title: v5.Title, Status: store.GroupUnresolved, FirstSeen: now, LastSeen: now, EventCount: 3,
			Level: int(ingest.Error), UpdatedAt: now}
		if err := db.Tx(ctx, func(c *store.Conn) error { return c.InsertGroup(ctx, old) }); err != nil {
			t.Fatal(err)
		}
		e.clock.Add(time.Minute)
		e.send(ingest.Event{Level: ingest.Error, Message: "TypeError: card declined by paylib", StackTrace: trace, Service: "web",
			Attributes: []byte(`{"sentry.in_app":"dyy"}`)})
		gs := e.groups()
		if len(gs) != 1 || gs[0].ID != old.ID || gs[0].EventCount != 4 || len(e.seen) != 0 {
			t.Fatalf("after the upgrade: %d groups (%+v), ticket events %v; want the version-5 group with 4 events and no ticket", len(gs), gs, e.seen)
		}
	})
}

// TestCurrentGroupWinsInARollingUpgrade: while a process of an older
// release runs beside this one, an error may get a group of each version
// (this release made one, then the older release made its own). This
// release's events then go to the current version's group, not to the
// older one, which would leave the current group and its ticket behind.
func TestCurrentGroupWinsInARollingUpgrade(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		refused := ingest.Event{Level: ingest.Error, Message: "connection failed", StackTrace: pyTrace("Connection refused"), Service: "api"}
		e.send(refused) // this release: a group of the current version
		gs := e.groups()
		if len(gs) != 1 || gs[0].FingerprintVersion != grouping.Version {
			t.Fatalf("first event: %+v", gs)
		}
		current := gs[0]
		// The older release makes its own group of the same error.
		v1, _ := grouping.FingerprintVersion(grouping.Input{Message: refused.Message, StackTrace: refused.StackTrace}, 1)
		now := e.clock.Now()
		old := store.Group{ID: id.New(id.Group), ProjectID: e.prj, Service: "api", Fingerprint: v1.Fingerprint, FingerprintVersion: 1,
			FingerprintRule: string(v1.Rule), Title: v1.Title, Status: store.GroupUnresolved, FirstSeen: now, LastSeen: now, EventCount: 1,
			Level: int(ingest.Error), UpdatedAt: now}
		if err := db.Tx(ctx, func(c *store.Conn) error { return c.InsertGroup(ctx, old) }); err != nil {
			t.Fatal(err)
		}
		// A fresh processor, which finds groups of an older version.
		p2 := process.New(db, process.Options{Now: e.clock.Now, InfoWindow: time.Hour})
		e.queue(refused, refused)
		if err := p2.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		g, err := db.Read().GroupByID(ctx, current.ID)
		if err != nil || g.EventCount != 3 {
			t.Fatalf("the current version's group: %d events, %v; want 3 (this release's events stay with it)", g.EventCount, err)
		}
		if o, _ := db.Read().GroupByID(ctx, old.ID); o.EventCount != 1 {
			t.Fatalf("the older release's group took this release's events: %d", o.EventCount)
		}
	})
}

// TestOlderGroupKeepsItsEventsAfterACurrentOneAppears: in a plain upgrade
// the current version may be coarser than an older one, so an event that
// matched no older group makes a current group whose fingerprint other
// events share with their older groups. Those older groups, made first,
// keep their events (only a current group made before the older one, in
// a rolling upgrade, wins).
func TestOlderGroupKeepsItsEventsAfterACurrentOneAppears(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		refused, in, v1 := refusedV1()
		cur := grouping.Fingerprint(in)
		old := versionGroup(e, v1, 1, 5)
		later := versionGroup(e, cur, grouping.Version, 1)
		if later.ID <= old.ID {
			t.Fatal("group ids are not ordered by creation: the test proves nothing")
		}
		insertGroups(t, db, old, later)
		e.send(refused, refused)
		if g, err := db.Read().GroupByID(ctx, old.ID); err != nil || g.EventCount != 7 {
			t.Fatalf("the older group: %d events, %v; want 7 (it keeps its events)", g.EventCount, err)
		}
		if g, _ := db.Read().GroupByID(ctx, later.ID); g.EventCount != 1 {
			t.Fatalf("the current group made after it took %d events, want none", g.EventCount-1)
		}
	})
}

// TestFirstGroupWinsWhateverVersionMadeIt: a key names no version, so the
// group of the event's current key counts whatever version made it (one
// the current version agrees with): made before an older version's group
// that the event also matches, it keeps the event's events.
func TestFirstGroupWinsWhateverVersionMadeIt(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		refused, in, v1 := refusedV1()
		cur := grouping.Fingerprint(in)
		first := versionGroup(e, cur, grouping.Version-1, 4)
		insertGroups(t, db, first, versionGroup(e, v1, 1, 1))
		e.send(refused)
		if g, err := db.Read().GroupByID(ctx, first.ID); err != nil || g.EventCount != 5 {
			t.Fatalf("the group made first (version %d, the current key): %d events, %v; want 5", first.FingerprintVersion, g.EventCount, err)
		}
	})
}

// versionGroup is a group of e's project and service api as fingerprint
// version v made it for res, with n events; insertGroups inserts groups
// in order (their ids are in creation order already).
func versionGroup(e *env, res grouping.Result, v int, n int64) store.Group {
	now := e.clock.Now()
	return store.Group{ID: id.New(id.Group), ProjectID: e.prj, Service: "api", Fingerprint: res.Fingerprint, FingerprintVersion: v,
		FingerprintRule: string(res.Rule), Title: res.Title, Status: store.GroupUnresolved, FirstSeen: now, LastSeen: now, EventCount: n,
		Level: int(ingest.Error), UpdatedAt: now}
}

func insertGroups(t *testing.T, db *store.DB, gs ...store.Group) {
	t.Helper()
	ctx := context.Background()
	if err := db.Tx(ctx, func(c *store.Conn) error {
		for _, g := range gs {
			if err := c.InsertGroup(ctx, g); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestAnotherErrorsGroupTakesNoEvents: the current version may give an
// error the fingerprint that another error's group of an older version
// has (a frame in a dependency, flagged in-app by the SDK, read as not
// in-app from version 6: the trace whose SDK flagged it not in-app had
// that fingerprint all along). The error's own older group keeps its
// events, whichever of the two groups was made first.
func TestAnotherErrorsGroupTakesNoEvents(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		trace := paylibTrace
		own, _ := grouping.FingerprintVersion(grouping.Input{StackTrace: trace, InApp: "dyy"}, 5)
		other, _ := grouping.FingerprintVersion(grouping.Input{StackTrace: trace, InApp: "nyy"}, 5)
		if cur := grouping.Fingerprint(grouping.Input{StackTrace: trace, InApp: "dyy"}); cur.Fingerprint != other.Fingerprint || own.Fingerprint == other.Fingerprint {
			t.Fatal("the versions do not give the fingerprints this test is about")
		}
		othersGroup, ownGroup := versionGroup(e, other, 5, 9), versionGroup(e, own, 5, 3)
		insertGroups(t, db, othersGroup, ownGroup) // the other error's first
		e.send(ingest.Event{Level: ingest.Error, Message: "TypeError: card declined by paylib", StackTrace: trace, Service: "api",
			Attributes: []byte(`{"sentry.in_app":"dyy"}`)})
		if g, err := db.Read().GroupByID(ctx, ownGroup.ID); err != nil || g.EventCount != 4 {
			t.Fatalf("the error's own group: %d events, %v; want 4", g.EventCount, err)
		}
		if g, _ := db.Read().GroupByID(ctx, othersGroup.ID); g.EventCount != 9 {
			t.Fatalf("another error's group took its events: %d", g.EventCount)
		}
	})
}

// TestIntermediateVersionGroupKeepsItsEvents: a group made by an
// intermediate version (2) at the key the current version gives an event
// (versions 2 to 6 agree on it) keeps taking the event over a version 1
// group made before it, as every release since version 3 routed it (the
// newest version's group first): a coarser version 2 had merged the error
// with another, and that group has been taking its events since.
func TestIntermediateVersionGroupKeepsItsEvents(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		// Version 2 reads runs of spaces as one; version 1 does not.
		padded := ingest.Event{Level: ingest.Error, Message: "worker   stalled on queue", Service: "api"}
		in := grouping.Input{Message: padded.Message}
		v1, _ := grouping.FingerprintVersion(in, 1)
		v2, _ := grouping.FingerprintVersion(in, 2)
		if cur := grouping.Fingerprint(in); cur.Fingerprint != v2.Fingerprint || v1.Fingerprint == v2.Fingerprint {
			t.Fatal("the versions do not give the fingerprints this test is about")
		}
		first, second := versionGroup(e, v1, 1, 3), versionGroup(e, v2, 2, 8)
		insertGroups(t, db, first, second)
		e.send(padded)
		if g, err := db.Read().GroupByID(ctx, second.ID); err != nil || g.EventCount != 9 {
			t.Fatalf("the version 2 group: %d events, %v; want 9", g.EventCount, err)
		}
		if g, _ := db.Read().GroupByID(ctx, first.ID); g.EventCount != 3 {
			t.Fatalf("the version 1 group took the event: %d", g.EventCount)
		}
	})
}

// TestPreviousVersionGroupMadeLaterLeavesOlderGroups: the release before
// this one (version 5 current) took its current key last, after the older
// groups: a group it made at that key for another event (a coarser
// version 5) did not take the events an older group was taking, and does
// not now that version 5 is an older version too.
func TestPreviousVersionGroupMadeLaterLeavesOlderGroups(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		refused, in, v1 := refusedV1()
		v5, _ := grouping.FingerprintVersion(in, grouping.Version-1)
		if cur := grouping.Fingerprint(in); cur.Fingerprint != v5.Fingerprint || v1.Fingerprint == v5.Fingerprint {
			t.Fatal("the versions do not give the fingerprints this test is about")
		}
		old, later := versionGroup(e, v1, 1, 5), versionGroup(e, v5, grouping.Version-1, 2)
		insertGroups(t, db, old, later)
		e.send(refused)
		if g, err := db.Read().GroupByID(ctx, old.ID); err != nil || g.EventCount != 6 {
			t.Fatalf("the older group: %d events, %v; want 6", g.EventCount, err)
		}
	})
}

// refusedV1 is a connection error of service api whose version 1
// fingerprint differs from the later versions', its grouping input and
// that version 1 fingerprint.
func refusedV1() (ingest.Event, grouping.Input, grouping.Result) {
	refused := ingest.Event{Level: ingest.Error, Message: "connection failed", StackTrace: pyTrace("Connection refused"), Service: "api"}
	in := grouping.Input{Message: refused.Message, StackTrace: refused.StackTrace}
	v1, _ := grouping.FingerprintVersion(in, 1)
	return refused, in, v1
}
