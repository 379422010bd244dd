package sentry

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

// FuzzParseEnvelope checks that no body panics the parser or the mapping,
// that both are deterministic, and that every event made is valid for
// ingestion (NUL and invalid UTF-8 replaced, limits met). Seeds are under
// testdata/fuzz/FuzzParseEnvelope: the specification's examples, bodies the
// SDKs sent, NUL and lone surrogates in every kind of string.
func FuzzParseEnvelope(f *testing.F) {
	f.Add([]byte("{}\n{\"type\":\"event\"}\n{\"message\":\"a\\u0000b\\ud800\"}"))
	f.Fuzz(func(t *testing.T, body []byte) {
		env, err := ParseEnvelope(body)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrItemTooLarge) {
				t.Fatalf("error %v is neither ErrMalformed nor ErrItemTooLarge", err)
			}
			return
		}
		checkMapped(t, env)
	})
}

// FuzzParseStore does the same for the bodies of the legacy store endpoint.
func FuzzParseStore(f *testing.F) {
	f.Add([]byte(`{"message":"m","extra":{"x":NaN}}`))
	f.Add([]byte("eJyrVspNLS5OTE9VslJQSixKzsgsS1WqBQBG9gbU"))
	f.Fuzz(func(t *testing.T, body []byte) {
		env, err := ParseStore("application/json", body)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrItemTooLarge) {
				t.Fatalf("error %v is neither ErrMalformed nor ErrItemTooLarge", err)
			}
			return
		}
		checkMapped(t, env)
	})
}

func checkMapped(t *testing.T, env *Envelope) {
	opts := Options{Service: "shop", ReceivedAt: time.Unix(1700000000, 0), NewID: func() string { return "0123456789abcdef0123456789abcdef" }}
	a, b := Map(env, opts), Map(env, opts)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("Map is not deterministic:\n%+v\n%+v", a, b)
	}
	if len(a.Events) > MaxEvents {
		t.Fatalf("%d events from one envelope, more than %d", len(a.Events), MaxEvents)
	}
	for _, m := range a.Malformed {
		if m.Reason == "" {
			t.Fatalf("malformed item %d without a reason", m.Item)
		}
	}
	for _, ev := range a.Events {
		if why := checkEvent(ev); why != "" {
			t.Fatalf("event %+v is not valid for ingestion: %s", ev, why)
		}
	}
}
