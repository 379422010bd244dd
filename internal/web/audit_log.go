package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/store"
)

// auditPage is how many entries the audit log page shows at once.
const auditPage = 50

// auditData fills the audit log page.
type auditData struct {
	Org     store.Org
	Entries []auditRow
	// Action and Actor are the filters; Older links the next page.
	Action, Actor string
	Older         string
}

// auditRow is one entry with its data as text.
type auditRow struct {
	store.AuditEntry
	Details string
}

// auditLog shows an organization's audit log, newest first, filtered as
// GET /v1/orgs/{org_id}/audit-log filters it (admins and owners).
func (d *Dashboard) auditLog(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "org_id", org.Admin); err != nil {
		return err
	}
	ctx, q := r.Context(), r.URL.Query()
	o, err := d.db.Read().OrgByID(ctx, p.Member.OrgID)
	if err != nil {
		return err
	}
	data := auditData{Org: o, Action: strings.TrimSpace(q.Get("action")), Actor: strings.TrimSpace(q.Get("actor"))}
	f := store.AuditFilter{Action: data.Action, Actor: strings.ToLower(data.Actor)}
	scope := "audit-page:" + o.ID + "\x00" + f.Action + "\x00" + f.Actor
	before, err := d.api.DecodeCursor(scope, q.Get("cursor"))
	if err != nil {
		return err
	}
	entries, err := d.db.Read().ListAudit(ctx, o.ID, f, before, auditPage+1)
	if err != nil {
		return err
	}
	if len(entries) > auditPage {
		entries = entries[:auditPage]
		v := url.Values{"cursor": {d.api.EncodeCursor(scope, entries[len(entries)-1].ID)}}
		if data.Action != "" {
			v.Set("action", data.Action)
		}
		if data.Actor != "" {
			v.Set("actor", data.Actor)
		}
		data.Older = "/orgs/" + o.ID + "/audit-log?" + v.Encode()
	}
	for _, e := range entries {
		data.Entries = append(data.Entries, auditRow{AuditEntry: e, Details: auditDetails(e.Data)})
	}
	crumbs := append(orgCrumbs(o), crumb{"Audit log", "/orgs/" + o.ID + "/audit-log"})
	d.render(w, r, http.StatusOK, "audit-log", p, frame{Title: "Audit log · " + o.Name, Crumbs: crumbs, OrgID: o.ID, Data: data})
	return nil
}

// auditDetails shows an entry's data as compact JSON ("" for none).
func auditDetails(data []byte) string {
	var m map[string]any
	if json.Unmarshal(data, &m) != nil || len(m) == 0 {
		return ""
	}
	b, _ := json.Marshal(m)
	return string(b)
}
