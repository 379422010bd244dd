package httpapi_test

// Control characters in management strings (CONTRACT 8, "Hostile input,
// round three"): every string of every management operation, body or
// query, refuses U+0000 and the other control characters but tab and
// newline with 422 naming the field, on both databases, after the checks
// that come first (401 → 404 → 403 → 400 → 422).

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/errata-dev/errata/internal/apitest"
)

// controlChars are the characters sent in each field: NUL, BEL, ESC, DEL
// and NEL (a C1 control).
var controlChars = []string{"\x00", "\a", "\x1b", "\x7f", "\u0085"}

// controlRow is a scenario: a well-formed request of one operation, its
// placeholders filled by the fixtures of TestControlCharactersAreRefused
// ({org}, {project}, {member}, {owner_member}, {invitation}, {key},
// {ticket}, {group}, {summary}, {channel}, {email}, {comment}). Every string input the
// OpenAPI document lists for the operation is then sent with each control
// character in turn.
type controlRow struct {
	method, path, body string
	public             bool // sent without a session token
}

// controlRows has one row per operation that takes a string in its query or
// body; a new such operation fails the test until it has one.
var controlRows = map[string]controlRow{
	"sign-up":                   {method: "POST", path: "/v1/auth/sign-up/email", body: `{"email":"{email}","password":"long enough","name":"Ada"}`, public: true},
	"sign-in":                   {method: "POST", path: "/v1/auth/sign-in/email", body: `{"email":"owner@example.com","password":"long enough"}`, public: true},
	"list-orgs":                 {method: "GET", path: "/v1/orgs"},
	"list-tokens":               {method: "GET", path: "/v1/auth/tokens"},
	"create-token":              {method: "POST", path: "/v1/auth/tokens", body: `{"name":"ci","scopes":["org:read"]}`},
	"create-org":                {method: "POST", path: "/v1/orgs", body: `{"name":"Acme"}`},
	"update-org":                {method: "PATCH", path: "/v1/orgs/{org}", body: `{"name":"Acme"}`},
	"list-members":              {method: "GET", path: "/v1/orgs/{org}/members"},
	"update-member":             {method: "PATCH", path: "/v1/members/{member}", body: `{"role":"member"}`},
	"list-invitations":          {method: "GET", path: "/v1/orgs/{org}/invitations"},
	"create-invitation":         {method: "POST", path: "/v1/orgs/{org}/invitations", body: `{"email":"{email}","role":"viewer"}`},
	"accept-invitation":         {method: "POST", path: "/v1/invitations/accept", body: `{"token":"inv_token"}`},
	"list-projects":             {method: "GET", path: "/v1/orgs/{org}/projects"},
	"create-project":            {method: "POST", path: "/v1/orgs/{org}/projects", body: `{"name":"api"}`},
	"update-project":            {method: "PATCH", path: "/v1/projects/{project}", body: `{"name":"api"}`},
	"list-keys":                 {method: "GET", path: "/v1/projects/{project}/keys"},
	"create-key":                {method: "POST", path: "/v1/projects/{project}/keys", body: `{"name":"ci","allowed_origins":["https://app.example.com"]}`},
	"update-key":                {method: "PATCH", path: "/v1/keys/{key}", body: `{"name":"ci","allowed_origins":["https://app.example.com"]}`},
	"list-releases":             {method: "GET", path: "/v1/projects/{project}/releases"},
	"list-tickets":              {method: "GET", path: "/v1/projects/{project}/tickets"},
	"update-ticket":             {method: "PATCH", path: "/v1/tickets/{ticket}", body: `{"status":"resolved"}`},
	"list-groups":               {method: "GET", path: "/v1/projects/{project}/groups"},
	"update-group":              {method: "PATCH", path: "/v1/groups/{group}", body: `{"status":"ignored"}`},
	"merge-groups":              {method: "POST", path: "/v1/groups/{group}/merge", body: `{"group_ids":["{other_group}"]}`},
	"list-group-events":         {method: "GET", path: "/v1/groups/{group}/events"},
	"list-group-activity":       {method: "GET", path: "/v1/groups/{group}/activity"},
	"create-comment":            {method: "POST", path: "/v1/groups/{group}/comments", body: `{"body":"looking"}`},
	"update-comment":            {method: "PATCH", path: "/v1/comments/{comment}", body: `{"body":"looking"}`},
	"bulk-groups":               {method: "POST", path: "/v1/projects/{project}/groups/bulk", body: `{"ids":["{group}"],"set":{"status":"ignored"}}`},
	"get-group-facets":          {method: "GET", path: "/v1/groups/{group}/facets"},
	"lookup":                    {method: "GET", path: "/v1/orgs/{org}/lookup"},
	"list-info-summaries":       {method: "GET", path: "/v1/projects/{project}/info-summaries"},
	"list-channels":             {method: "GET", path: "/v1/projects/{project}/channels"},
	"create-channel":            {method: "POST", path: "/v1/projects/{project}/channels", body: `{"member_id":"{owner_member}","name":"ops","type":"email"}`},
	"update-channel":            {method: "PATCH", path: "/v1/channels/{channel}", body: `{"name":"ops"}`},
	"list-deliveries":           {method: "GET", path: "/v1/channels/{channel}/deliveries"},
	"put-notification-settings": {method: "PUT", path: "/v1/projects/{project}/notification-settings", body: `{"digest":{"enabled":true,"frequency":"daily","hour":9,"timezone":"UTC"}}`},
	"list-digests":              {method: "GET", path: "/v1/projects/{project}/digests"},
	"put-grouping-rules":        {method: "PUT", path: "/v1/projects/{project}/grouping-rules", body: `{"fingerprint":"error.type:A -> a","stack_trace":"stack.function:f -group"}`},
	"list-sessions":             {method: "GET", path: "/v1/auth/sessions"},
	"change-password":           {method: "POST", path: "/v1/auth/password", body: `{"current_password":"long enough","new_password":"long enough"}`},
	"list-audit-log":            {method: "GET", path: "/v1/orgs/{org}/audit-log"},
	"confirm-totp":              {method: "POST", path: "/v1/auth/totp/confirm", body: `{"code":"123456"}`},
	"disable-totp":              {method: "DELETE", path: "/v1/auth/totp", body: `{"code":"123456"}`},
	"verify-email":              {method: "POST", path: "/v1/auth/verify-email", body: `{"token":"abc"}`, public: true},
}

// stringInput is one string a request can carry: a query parameter or a
// body field (a list's item is appended, hence the [i] in its name).
type stringInput struct {
	query bool
	path  []string // body: the keys down to the field
	list  bool     // the field is a list of strings
	// free is a plain string: the detail must be the control rule's own
	// (an enumeration's or a format's own check may answer first).
	free bool
}

func (in stringInput) name(listLen int) string {
	n := strings.Join(in.path, ".")
	if in.list {
		n += fmt.Sprintf("[%d]", listLen)
	}
	return n
}

// stringInputs lists the string query parameters and body fields of op,
// from the served OpenAPI document.
func stringInputs(op *openapi3.Operation) []stringInput {
	var out []stringInput
	for _, p := range op.Parameters {
		if p.Value.In != "query" || p.Value.Schema == nil {
			continue
		}
		if s := p.Value.Schema.Value; s.Type.Is("string") {
			out = append(out, stringInput{query: true, path: []string{p.Value.Name}, free: len(s.Enum) == 0 && s.Format == ""})
		}
	}
	if op.RequestBody != nil {
		if mt := op.RequestBody.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
			out = append(out, bodyStrings(mt.Schema.Value, nil, 0)...)
		}
	}
	return out
}

func bodyStrings(s *openapi3.Schema, at []string, depth int) []stringInput {
	if depth > 8 {
		return nil
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []stringInput
	for _, k := range names {
		p := s.Properties[k].Value
		path := append(slices.Clone(at), k)
		switch {
		case p.Type.Is("string"):
			out = append(out, stringInput{path: path, free: len(p.Enum) == 0 && p.Format == ""})
		case p.Type.Is("array") && p.Items != nil && p.Items.Value.Type.Is("string"):
			it := p.Items.Value
			out = append(out, stringInput{path: path, list: true, free: len(it.Enum) == 0 && it.Format == ""})
		case p.Type.Is("object"):
			out = append(out, bodyStrings(p, path, depth+1)...)
		}
	}
	return out
}

// inject returns the row's request with in set to a value holding c, and
// the field name the answer must give.
func inject(row controlRow, body string, in stringInput, c string) (path string, b any, field string) {
	value := "ok" + c + "ok"
	path = row.path
	if in.query {
		return path + "?" + url.Values{in.path[0]: {value}}.Encode(), nilIfEmpty(body), in.path[0]
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		panic(err)
	}
	obj := m
	for _, k := range in.path[:len(in.path)-1] {
		next, _ := obj[k].(map[string]any)
		if next == nil {
			next = map[string]any{}
			obj[k] = next
		}
		obj = next
	}
	last := in.path[len(in.path)-1]
	if !in.list {
		obj[last] = value
		return path, m, in.name(0)
	}
	list, _ := obj[last].([]any)
	if len(list) == 0 {
		list = []any{"fine"}
	}
	obj[last] = append(list, value)
	return path, m, in.name(len(list))
}

func nilIfEmpty(body string) any {
	if body == "" {
		return nil
	}
	return body
}

// controlFixtures makes one of each resource the rows name.
func controlFixtures(t *testing.T, s *apitest.Server, w procWorld) placeholders {
	t.Helper()
	ticket, group := seedTicket(t, s, w.Owner.Token, w.ProjectID)
	_, other := seedTicket(t, s, w.Owner.Token, w.ProjectID)
	keyID, _ := s.CreateKey(t, w.Owner.Token, w.ProjectID)
	invID, _ := s.Invite(t, w.Owner.Token, w.OrgID, newEmail("pending"), "viewer")
	ch := createChannel(t, s, w.Owner.Token, w.ProjectID, emailChannel(w.Owner.MemberID, "ops"))
	comment := s.Do(apitest.Request{Method: "POST", Path: "/v1/groups/" + group + "/comments", Token: w.Owner.Token, Body: map[string]any{"body": "seen"}}).
		Expect(t, http.StatusCreated, "").Str(t, "id")
	return placeholders{"{org}": w.OrgID, "{project}": w.ProjectID, "{member}": w.Viewer.MemberID, "{owner_member}": w.Owner.MemberID,
		"{invitation}": invID, "{key}": keyID, "{ticket}": ticket, "{group}": group, "{other_group}": other,
		"{summary}": seedSummary(t, s, w.Owner.Token, w.ProjectID), "{channel}": ch["id"].(string), "{email}": newEmail("new"),
		"{comment}": comment}
}

// TestControlCharacters runs the control rule's cases on one server per
// database (each starts a world, which costs more than the cases).
func TestControlCharacters(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		p := controlFixtures(t, s, w)
		t.Run("every field of every operation is refused", func(t *testing.T) { refusedEverywhere(t, s, w, p) })
		t.Run("check order", func(t *testing.T) { checkOrder(t, s, w) })
		t.Run("passwords take any character", func(t *testing.T) { passwordsExempt(t, s, w) })
		t.Run("tab and newline are text", func(t *testing.T) { tabAndNewline(t, s, w) })
	})
}

// refusedEverywhere sends U+0000, U+0007, U+001B, U+007F and U+0085 in each
// string field of each management operation the served document lists and
// expects 422 validation-failed naming the field; nothing is changed.
func refusedEverywhere(t *testing.T, s *apitest.Server, w procWorld, p placeholders) {
	r := s.Do(apitest.Request{Method: "GET", Path: "/v1/openapi.json"}).Expect(t, http.StatusOK, "")
	doc, err := openapi3.NewLoader().LoadFromData(r.Body)
	if err != nil {
		t.Fatalf("load openapi.json: %v", err)
	}
	c := &contract{s: s, doc: doc}
	tried := 0
	for _, o := range c.operations() {
		ins := stringInputs(o.op)
		if len(ins) == 0 || !strings.HasPrefix(o.path, "/v1/") || o.path == "/v1/ingest" || o.path == "/v1/logs" {
			continue
		}
		row, ok := controlRows[o.op.OperationID]
		if !ok {
			t.Errorf("%s (%s) takes strings but has no row in controlRows", o.op.OperationID, o)
			continue
		}
		token := w.Owner.Token
		if row.public {
			token = ""
		}
		for _, in := range ins {
			if strings.HasSuffix(in.path[len(in.path)-1], "password") {
				continue // exempt: passwordsExempt
			}
			for _, ch := range controlChars {
				path, body, field := inject(row, p.fill(row.body), in, ch)
				r := s.Do(apitest.Request{Method: row.method, Path: p.fill(path), Token: token, Body: body})
				tried++
				if r.Status != http.StatusUnprocessableEntity {
					t.Errorf("%s %s with %q: status %d, want 422; body: %s", o.op.OperationID, field, ch, r.Status, r.Body)
					continue
				}
				r.Expect(t, http.StatusUnprocessableEntity, "validation-failed")
				detail := r.Str(t, "detail")
				want := field + ": must not contain control characters"
				if (in.free && detail != want) || !strings.HasPrefix(detail, field+": ") {
					t.Errorf("%s %s with %q: detail %q, want %q", o.op.OperationID, field, ch, detail, want)
				}
			}
		}
	}
	if tried < 250 {
		t.Errorf("%d requests tried; the document lists fewer string inputs than expected", tried)
	}
	// Nothing was changed by a refused request.
	if o := getJSON(t, s, w.Owner.Token, "/v1/orgs/"+w.OrgID); o["name"] != "Acme" {
		t.Errorf("organization after refused renames = %v", o["name"])
	}
	if n := len(items(t, s, w.Owner.Token, "/v1/orgs?limit=100")); n != 1 {
		t.Errorf("organizations after refused creations = %d, want 1", n)
	}
}

// passwordsExempt: a password is only ever hashed, never stored or shown,
// so it is exempt from the control rule (refusing one at sign-in would lock
// out whoever chose it).
func passwordsExempt(t *testing.T, s *apitest.Server, w procWorld) {
	const pw = "bell\a nul\x00 nel\u0085 end"
	_, token := s.Invite(t, w.Owner.Token, w.OrgID, "ada@example.com", "viewer")
	body := map[string]any{"email": "ada@example.com", "password": pw, "name": "Ada", "invitation_token": token}
	s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-up/email", Body: body}).Expect(t, http.StatusOK, "")
	in := map[string]any{"email": "ada@example.com", "password": pw}
	s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: in}).Expect(t, http.StatusOK, "")
	in["password"] = "bell nul nel end"
	s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: in}).Expect(t, http.StatusUnauthorized, "invalid-credentials")
}

// checkOrder: the control rule is a 422, so the checks before it win
// (CONTRACT 6: 401 → 404 → 403 → 400 → 422), and a path identifier with a
// control character names nothing (404).
func checkOrder(t *testing.T, s *apitest.Server, w procWorld) {
	path := "/v1/projects/" + w.ProjectID + "/keys"
	bad := `{"name":"c\u0000i"}`
	send(s, "POST", path, "", bad).Expect(t, http.StatusUnauthorized, "unauthorized")
	send(s, "POST", path, w.Outsider.Token, bad).Expect(t, http.StatusNotFound, "not-found")
	send(s, "POST", path, w.Viewer.Token, bad).Expect(t, http.StatusForbidden, "forbidden")
	send(s, "POST", path, w.Owner.Token, `{"name":"c\u0000i",`).Expect(t, http.StatusBadRequest, "malformed-body")
	send(s, "POST", path, w.Owner.Token, bad).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
	for _, p := range []string{"/v1/projects/" + w.ProjectID + "%00/keys", "/v1/orgs/%00", "/v1/groups/grp_%07/events", "/v1/channels/chn_" + zeros + "%C2%85"} {
		send(s, "GET", p, w.Owner.Token, "").Expect(t, http.StatusNotFound, "not-found")
	}
}

// tabAndNewline: tab and newline are the two control characters text may
// hold; names keep them as sent (after trimming the ends).
func tabAndNewline(t *testing.T, s *apitest.Server, w procWorld) {
	const name = "Acme\tEU\nWest"
	check := func(what string, r *apitest.Response, status int) {
		t.Helper()
		if got := r.Expect(t, status, "").Str(t, "name"); got != name {
			t.Errorf("%s name = %q, want %q", what, got, name)
		}
	}
	check("project", s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs/" + w.OrgID + "/projects", Token: w.Owner.Token, Body: map[string]any{"name": name}}), http.StatusCreated)
	check("key", s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/keys", Token: w.Owner.Token, Body: map[string]any{"name": name}}), http.StatusCreated)
	check("channel", s.Do(apitest.Request{Method: "POST", Path: channelsPath(w.ProjectID), Token: w.Owner.Token, Body: emailChannel(w.Owner.MemberID, name)}), http.StatusCreated)
	check("organization", s.Do(apitest.Request{Method: "PATCH", Path: "/v1/orgs/" + w.OrgID, Token: w.Owner.Token, Body: map[string]any{"name": name}}), http.StatusOK)
	groups := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/groups?environment=" + url.QueryEscape("a\tb\nc"), Token: w.Owner.Token})
	groups.Expect(t, http.StatusOK, "")
}
