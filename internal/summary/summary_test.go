package summary

import (
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
)

func TestCheckWindow(t *testing.T) {
	for d, ok := range map[time.Duration]bool{time.Minute: true, time.Hour: true, 24 * time.Hour: true,
		30 * time.Second: false, 7 * time.Minute: false, 48 * time.Hour: false} {
		if err := CheckWindow(d); (err == nil) != ok {
			t.Errorf("CheckWindow(%s) = %v, want ok %v", d, err, ok)
		}
	}
}

func TestAddCountsInItsWindow(t *testing.T) {
	received := time.Date(2026, 11, 28, 17, 42, 5, 0, time.UTC)
	d := NewDelta("prj_1", received, time.Hour)
	if d.WindowStart != time.Date(2026, 11, 28, 17, 0, 0, 0, time.UTC) || d.WindowEnd != time.Date(2026, 11, 28, 18, 0, 0, 0, time.UTC) {
		t.Fatalf("window got %s to %s", d.WindowStart, d.WindowEnd)
	}
	tpl := Templates{}
	for _, e := range []ingest.Event{
		{Level: ingest.Info, Service: "api", Message: "user 42 signed in"},
		{Level: ingest.Debug, Service: "api", Message: "user 7 signed in"},
		{Level: ingest.Info, Service: "web", Message: "page rendered"},
	} {
		if !Counts(e.Level) {
			t.Fatalf("%v not counted", e.Level)
		}
		Add(d, &e, tpl, TemplateOf(e.Message))
	}
	if d.Events != 2 || d.Debug != 1 || d.Services["api"] != 2 || d.Services["web"] != 1 {
		t.Errorf("counts got events %d debug %d services %v", d.Events, d.Debug, d.Services)
	}
	if len(tpl) != 2 {
		t.Fatalf("templates got %d, want 2: %v", len(tpl), tpl)
	}
	for _, c := range tpl {
		if c.Template != "page rendered" && (c.Count != 2 || c.Sample != "user 42 signed in" || c.Hash != TemplateHash(c.Template)) {
			t.Errorf("template got %+v", *c)
		}
	}
	if Counts(ingest.Warn) {
		t.Error("warn is counted in a summary, want it grouped")
	}
}
