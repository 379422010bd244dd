package sentry

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestParseEnvelope(t *testing.T) {
	ev := `{"message":"hi"}`
	tests := []struct {
		name      string
		body      string
		err       error
		types     string // the framed items' types and payloads, "type=payload;…"
		malformed string // the malformed items' indexes and types, "index:type;…"
	}{
		{"empty body", ``, ErrMalformed, "", ""},
		{"header not JSON", "hello\n", ErrMalformed, "", ""},
		{"header an array", "[]\n", ErrMalformed, "", ""},
		{"header null", "null\n", ErrMalformed, "", ""},
		{"header only", `{"event_id":"x"}`, nil, "", ""},
		{"empty header", "{}\n", nil, "", ""},
		{"header of the wrong types", `{"event_id":5,"dsn":[]}` + "\n", nil, "", ""},
		{"implicit length", "{}\n{\"type\":\"event\"}\n" + ev, nil, "event=" + ev, ""},
		{"explicit length", "{}\n{\"type\":\"event\",\"length\":16}\n" + ev + "\n", nil, "event=" + ev, ""},
		{"length with newlines inside", "{}\n{\"type\":\"attachment\",\"length\":5}\na\nb\nc\n{\"type\":\"event\"}\n" + ev,
			nil, "attachment=a\nb\nc;event=" + ev, ""},
		{"blank lines and CRLF", "{}\r\n\n{\"type\":\"event\"}\r\n" + ev + "\n\n\r\n{\"type\":\"session\"}\n{}\n", nil,
			"event=" + ev + ";session={}", ""},
		{"empty payload at the end", "{}\n{\"type\":\"attachment\"}", nil, "attachment=", ""},
		{"bad item header in the middle", "{}\n{\"type\":\"event\"}\n" + ev + "\n{oops\n{\"x\":1}\n{\"type\":\"log\"}\n{}", nil,
			"event=" + ev + ";log={}", "1:"},
		{"item header not an object", "{}\n[1]\n{}\n{\"type\":\"event\"}\n" + ev, nil, "event=" + ev, "0:"},
		{"garbage line before an item", "{}\ngarbage\n{\"type\":\"event\"}\n" + ev, nil, "event=" + ev, "0:"},
		// A payload cut short: the envelope was truncated, and is malformed.
		{"length past the end", "{}\n{\"type\":\"event\"}\n" + ev + "\n{\"type\":\"attachment\",\"length\":99}\nshort", ErrMalformed, "", ""},
		{"length not followed by a newline", "{}\n{\"type\":\"attachment\",\"length\":2}\nabc\n{\"type\":\"event\"}\n" + ev, nil,
			"event=" + ev, "0:attachment"},
		{"no newline after a payload, then an item", "{}\n{\"type\":\"attachment\",\"length\":0}\n{\"type\":\"event\"}\n" + ev, nil,
			"event=" + ev, "0:attachment"},
		// A wrong length that takes the next item's header and ends where
		// that item's payload, a transaction with a type of its own,
		// begins: the payload line is no item header, and the event after
		// it is kept.
		{"long length ending at a typed payload", "{}\n{\"type\":\"attachment\",\"length\":27}\nabc\n{\"type\":\"transaction\"}\n" +
			"{\"type\":\"transaction\",\"spans\":[]}\n{\"type\":\"event\"}\n" + ev, nil, "event=" + ev, "0:attachment"},
		// After a stray line, a header with a member unknown here (a newer
		// SDK's) is still one when its length frames its payload.
		{"garbage line before a header of a newer SDK", "{}\ngarbage\n{\"type\":\"event\",\"length\":16,\"x_new\":1}\n" + ev, nil, "event=" + ev, "0:"},
		{"negative length", "{}\n{\"type\":\"attachment\",\"length\":-1}\nabc\n{\"type\":\"event\"}\n" + ev, nil, "event=" + ev, "0:attachment"},
		{"length as a string", "{}\n{\"type\":\"attachment\",\"length\":\"3\"}\nabc\n{\"type\":\"event\"}\n" + ev, nil, "event=" + ev, "0:attachment"},
		{"no type", "{}\n{\"length\":2}\nab\n{\"type\":\"event\"}\n" + ev, nil, "event=" + ev, "0:"},
		{"type not a string", "{}\n{\"type\":7}\nab\n{\"type\":\"event\"}\n" + ev, nil, "event=" + ev, "0:"},
		{"escaped type", "{}\n{\"type\":\"ev\\u0065nt\"}\n" + ev, nil, "event=" + ev, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := ParseEnvelope([]byte(tt.body))
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if err != nil {
				return
			}
			var types, malformed []string
			for _, it := range env.Items {
				types = append(types, it.Type+"="+string(it.Payload))
			}
			for _, m := range env.Malformed {
				malformed = append(malformed, itoa(m.Item)+":"+m.Type)
				if m.Reason == "" {
					t.Errorf("malformed item %d has no reason", m.Item)
				}
			}
			if got := strings.Join(types, ";"); got != tt.types {
				t.Errorf("items %q, want %q", got, tt.types)
			}
			if got := strings.Join(malformed, ";"); got != tt.malformed {
				t.Errorf("malformed %q, want %q", got, tt.malformed)
			}
		})
	}
}

func TestParseEnvelopeHeader(t *testing.T) {
	env, err := ParseEnvelope([]byte(`{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc","dsn":"https://k@h/42","sent_at":"2026-11-24T12:00:00Z","sdk":{"name":"sentry.go","version":"0.50.0"}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Header{EventID: "9ec79c33ec9942ab8353589fcb2e04dc", DSN: "https://k@h/42", SentAt: "2026-11-24T12:00:00Z", SDK: "sentry.go"}
	if env.Header != want {
		t.Errorf("header %+v, want %+v", env.Header, want)
	}
}

func TestParseEnvelopeLimits(t *testing.T) {
	big := strings.Repeat("x", MaxItemBytes+1)
	if _, err := ParseEnvelope([]byte("{}\n{\"type\":\"event\"}\n" + big)); !errors.Is(err, ErrItemTooLarge) {
		t.Errorf("an event item of %d bytes: err %v, want ErrItemTooLarge", len(big), err)
	}
	if _, err := ParseEnvelope([]byte("{}\n{\"type\":\"log\"}\n" + big)); !errors.Is(err, ErrItemTooLarge) {
		t.Errorf("a log item of %d bytes: err %v, want ErrItemTooLarge", len(big), err)
	}
	if _, err := ParseEnvelope([]byte("{}\n{\"type\":\"attachment\"}\n" + big)); !errors.Is(err, ErrItemTooLarge) {
		t.Errorf("an attachment of %d bytes: err %v, want ErrItemTooLarge (1 MiB per item, whatever its type)", len(big), err)
	}
	if env, err := ParseEnvelope([]byte("{}\n{\"type\":\"attachment\"}\n" + big[1:])); err != nil || len(env.Items) != 1 {
		t.Errorf("an attachment of exactly %d bytes: %v, want it accepted", MaxItemBytes, err)
	}
	many := "{}\n" + strings.Repeat("{\"type\":\"session\"}\n{}\n", MaxItems+5)
	env, err := ParseEnvelope([]byte(many))
	if err != nil {
		t.Fatal(err)
	}
	if len(env.Items) != MaxItems || len(env.Malformed) != 1 || env.Malformed[0].Item != MaxItems {
		t.Errorf("%d items: kept %d, malformed %+v; want %d and one report", MaxItems+5, len(env.Items), env.Malformed, MaxItems)
	}
}

func TestDSN(t *testing.T) {
	for _, tt := range []struct {
		dsn    string
		key    string
		number int64
	}{
		{"https://svc_live_abc_def@errata.example.com/7", "svc_live_abc_def", 7},
		{"http://key:secret@127.0.0.1:8080/base/path/42/", "key", 42},
		{"https://e12d836b15bb49d7bbf99e64295d995b:@sentry.io/42", "e12d836b15bb49d7bbf99e64295d995b", 42},
		{"https://host/7", "", 0},
		{"https://k@host/zero", "", 0},
		{"https://k@host/0", "", 0},
		{"not a url", "", 0},
	} {
		d, err := ParseDSN(tt.dsn)
		if d.Key != tt.key || d.Number != tt.number || (err != nil) != (tt.key == "") {
			t.Errorf("ParseDSN(%q) = %+v, %v; want %q %d", tt.dsn, d, err, tt.key, tt.number)
		}
	}
	base, _ := url.Parse("https://errata.example.com:8443/errata/")
	dsn := FormatDSN(base, "svc_live_a_b", 12)
	if dsn != "https://svc_live_a_b@errata.example.com:8443/errata/12" {
		t.Errorf("FormatDSN = %q", dsn)
	}
	if d, err := ParseDSN(dsn); err != nil || d.Key != "svc_live_a_b" || d.Number != 12 {
		t.Errorf("ParseDSN(FormatDSN(…)) = %+v, %v", d, err)
	}
	for h, want := range map[string]string{
		"Sentry sentry_version=7, sentry_client=sentry.go/0.50.0, sentry_key=svc_live_a_b": "svc_live_a_b",
		"sentry sentry_key=k1,sentry_version=7":                                            "k1",
		"Sentry sentry_version=7":                                                          "",
		"Bearer svc_live_a_b":                                                              "",
		"":                                                                                 "",
	} {
		if got := AuthKey(h); got != want {
			t.Errorf("AuthKey(%q) = %q, want %q", h, got, want)
		}
	}
}
