package webhook

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseEvent(t *testing.T) {
	t.Parallel()
	project := Project{ID: "prj_01jd8x3v7c0000000000000002", Name: "checkout"}
	tests := []struct {
		name    string
		body    string
		want    Event // Raw is not compared here
		wantErr string
	}{
		{"test", vecBody, Event{Type: EventTest, DeliveryID: "tst_01jd8x3v7c0000000000000000", OrganizationID: "org_01jd8x3v7c0000000000000001", Project: project}, ""},
		{"ticket", `{"type":"ticket","delivery_id":"dlv_1","organization_id":"org_1","project":{"id":"prj_01jd8x3v7c0000000000000002","name":"checkout"},` +
			`"ticket":{"id":"tkt_1","severity":"critical"},"ticket_url":"https://errata.example.com/tickets/tkt_1"}`,
			Event{Type: EventTicket, DeliveryID: "dlv_1", OrganizationID: "org_1", Project: project}, ""},
		{"digest", `{"type":"digest","delivery_id":"dlv_2","organization_id":"org_1","project":{"id":"prj_01jd8x3v7c0000000000000002","name":"checkout"},"digest":{"id":"dig_1","info":null}}`,
			Event{Type: EventDigest, DeliveryID: "dlv_2", OrganizationID: "org_1", Project: project}, ""},
		{"unknown fields and kinds", `{"type":"incident","delivery_id":"dlv_3","new_field":[1,2],"project":{"id":"prj_x","region":"eu"}}`,
			Event{Type: "incident", DeliveryID: "dlv_3", Project: Project{ID: "prj_x"}}, ""},
		{"not JSON", `{"type":`, Event{}, "webhook: parse event: "},
		{"an array", `[{"type":"test"}]`, Event{}, "webhook: parse event: "},
		{"null", `null`, Event{}, "no type"},
		{"no type", `{"delivery_id":"dlv_1"}`, Event{}, "no type"},
		{"a type that is not a string", `{"type":1}`, Event{}, "webhook: parse event: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseEvent([]byte(tt.body))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseEvent() error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseEvent() error = %v, want nil", err)
			}
			if string(got.Raw) != tt.body {
				t.Errorf("ParseEvent().Raw = %s, want the body", got.Raw)
			}
			got.Raw = nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseEvent() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseEventRawIsACopy(t *testing.T) {
	t.Parallel()
	body := []byte(vecBody)
	ev, err := ParseEvent(body)
	if err != nil {
		t.Fatalf("ParseEvent() error = %v", err)
	}
	body[2] = 'X'
	if got := string(ev.Raw); got != vecBody {
		t.Errorf("Raw after the caller reused its buffer = %s, want %s", got, vecBody)
	}
}
