package store

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestCancelSystemEmailsUsesTheSubjectIndex: SQLite finds a subject's
// system emails through deliveries_system, not by reading every pending
// email of no channel (a bulk assignment of 10,000 groups took 110 s).
func TestCancelSystemEmailsUsesTheSubjectIndex(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	now := ms(time.Now())
	rows, err := db.Write().query(ctx, "EXPLAIN QUERY PLAN "+cancelSystemEmails, DeliveryCancelled, now, []byte("{}"), "grp_1", EventAssignment, DeliveryPending, now)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if p := strings.Join(plan, "; "); !strings.Contains(p, "deliveries_system") || strings.Contains(p, "deliveries_channel_lease") {
		t.Errorf("plan %q: want the subject's emails found through deliveries_system", p)
	}
}
