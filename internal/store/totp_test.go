package store_test

import (
	"context"
	"testing"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestTOTPStepsSurviveTheUpgrade: the step an older release recorded as
// used (users.totp_last_step) is still used after migration 00058, so a
// code accepted just before the upgrade is not accepted again after it;
// other steps within the skew are.
func TestTOTPStepsSurviveTheUpgrade(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if err := db.MigrateDownTo(ctx, 57); err != nil {
			t.Fatal(err)
		}
		u := seedUser(t, db.Write(), "ada@example.com")
		if err := db.ExecForTest(ctx, `UPDATE users SET totp_secret = 'JBSWY3DPEHPK3PXP', totp_last_step = 1000 WHERE id = ?`, u.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			step int64
			want bool
		}{{1000, false}, {999, true}, {1001, true}, {1001, false}} {
			var ok bool
			err := db.Tx(ctx, func(cn *store.Conn) (err error) { ok, err = cn.UseTOTPStep(ctx, u.ID, c.step); return err })
			if err != nil || ok != c.want {
				t.Fatalf("UseTOTPStep(%d) = %v, %v; want %v", c.step, ok, err, c.want)
			}
		}
	})
}
