package grouping

import "testing"

func TestParameterize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		// Every placeholder.
		{"email", "no account for Jane.Doe+tag@mail.example.co.uk", "no account for <email>"},
		{"url", "GET https://api.example.com/v1/users/42?token=abc&x=1#frag failed", "GET <url> failed"},
		{"url trailing punctuation", "see (https://example.com/a_(b)) now.", "see (<url>) now."},
		{"url in quotes", `fetch "postgres://u:p@db:5432/app?sslmode=disable"`, `fetch "<url>"`},
		{"hostname known tld", "dial tcp: lookup api.stripe.com: no such host", "dial tcp: lookup <hostname>: no such host"},
		{"hostname internal", "connect to kafka-1.kafka.default.svc.cluster.local:9092", "connect to <hostname>:<int>"},
		{"hostname several labels with digit", "node db-3.prod.acme down", "node <hostname> down"},
		{"ipv4", "reset by 10.0.12.7:5432 after 3 tries", "reset by <ip>:<int> after <int> tries"},
		{"dialled port stays", "dial tcp 10.0.12.7:5432: connect: connection refused", "dial tcp <ip>:5432: connect: connection refused"},
		{"dialled ipv6 port stays", "dial tcp [::1]:6379: connect: connection refused", "dial tcp <ip>:6379: connect: connection refused"},
		{"node ipv6 with port", "connect ECONNREFUSED ::1:5432", "connect ECONNREFUSED <ip>:5432"},
		{"node ipv6 other address with port", "connect ETIMEDOUT 2001:db8::7:443", "connect ETIMEDOUT <ip>:443"},
		{"ipv6 loopback with port", "peer ::1:50412 went away", "peer <ip>:<int> went away"},
		{"query of a path", `request: "GET /forum/poll/?EIO=3&sid=Q9z39iYh HTTP/1.1"`, `request: "GET /forum/poll/?<query> HTTP/<float>"`},
		{"question stays", "is it down? yes", "is it down? yes"},
		{"logback thread", "ERROR 3601 --- [10001-exec-2223] o.a.c.c.C : boom", "ERROR <int> --- [<thread>] o.a.c.c.C : boom"},
		{"spring boot 3 thread", "ERROR 34 --- [Lavalink] [  XNIO-1 task-3] io.undertow : x", "ERROR <int> --- [<thread>] io.undertow : x"},
		{"padding", "dispatcherServlet]    : Servlet \t failed", "dispatcherServlet] : Servlet failed"},
		{"single tab stays", "a\tb", "a\tb"},
		{"android fragment identity hash", "Fragment EtaFragment{a8e03d7} not attached to a context.", "Fragment EtaFragment{<hex>} not attached to a context."},
		{"java identity hash", "Transaction failed on android.os.BinderProxy@1b2c3d", "Transaction failed on android.os.BinderProxy@<hex>"},
		{"a hex-looking word after a brace stays", "EtaFragment{deadbe} and {a8e03d7}", "EtaFragment{deadbe} and {a8e03d7}"},
		{"ipv6", "from 2001:db8::ff00:42:8329 and fe80::1%eth0", "from <ip> and <ip>"},
		{"ipv6 loopback", "listen [::1]:8080", "listen <ip>:<int>"},
		{"ipv6 bracketed port", "http: panic serving [2001:db8::7]:60825: x", "http: panic serving <ip>:<int>: x"},
		{"ipv6 bracketed zone", "dial [fe80::1%eth0]:22 failed", "dial <ip>:<int> failed"},
		{"ipv4 port like ipv6", "http: panic serving 10.42.3.17:51234: x", "http: panic serving <ip>:<int>: x"},
		{"generated id", "session j63zfamesa90bn0ioew25nfxuvmu0nvz expired", "session <id> expired"},
		{"sanitizer thread", "READ of size 8 at 0x62503173e040 thread T2", "READ of size <int> at <hex> thread T<int>"},
		{"source location keeps its line", "thread 'main' panicked at src/main.rs:319:101:", "thread 'main' panicked at src/main.rs:319:<int>:"},
		{"port after a host stays a number", "dial api.example.com:443 and 10.0.0.1:80", "dial <hostname>:<int> and <ip>:<int>"},
		{"short mixed word stays", "codec h264 and x86_64 ok", "codec h264 and x86_64 ok"},
		{"ipv6 mapped", "peer ::ffff:192.0.2.128 closed", "peer <ip> closed"},
		{"ipv6 full", "addr 2001:0db8:85a3:0000:0000:8a2e:0370:7334 bad", "addr <ip> bad"},
		{"traceparent", "bad parent 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "bad parent <traceparent>"},
		{"uuid", "order 3F2A1B9C-1234-4ABC-8DEF-0123456789AB not found", "order <uuid> not found"},
		{"sha1", "commit 356a192b7913b04c54574d837c7e6b8c8b6f6f8a missing", "commit <sha1> missing"},
		{"md5", "etag 5d41402abc4b2a76b9719d911017c592 mismatch", "etag <md5> mismatch"},
		{"date", "no rates for 2024-01-02", "no rates for <date>"},
		{"date slashes", "report 02/01/2024 and 2024/01/02 late", "report <date> and <date> late"},
		{"date spelled", "expires 2 Jan 2026", "expires <date>"},
		{"datetime iso", "at 2024-01-02T15:04:05.123+07:00 failed", "at <datetime> failed"},
		{"datetime iso z", "at 2024-01-02T15:04:05Z", "at <datetime>"},
		{"datetime space", "at 2024-01-02 15:04:05 failed", "at <datetime> failed"},
		{"datetime go", "at 2024-01-02 15:04:05.999 +0000 UTC failed", "at <datetime> failed"},
		{"datetime rfc1123", "If-Modified-Since: Mon, 02 Jan 2006 15:04:05 GMT", "If-Modified-Since: <datetime>"},
		{"datetime rfc2822", "Date: Tue, 2 Jan 2024 15:04:05 -0700 bad", "Date: <datetime> bad"},
		{"datetime syslog", "Jan  2 15:04:05 web1 kernel: oops", "<datetime> web1 kernel: oops"},
		{"datetime ansic", "Tue Jan  2 15:04:05 2024 boom", "<datetime> boom"},
		{"datetime apache", "[02/Jan/2024:15:04:05 -0700] slow", "[<datetime>] slow"},
		{"time", "job ran at 15:04:05.123", "job ran at <time>"},
		{"duration ms", "timeout after 150ms", "timeout after <duration>"},
		{"duration float", "took 1.5s", "took <duration>"},
		{"duration compound", "lease expired 2h30m15s ago", "lease expired <duration> ago"},
		{"duration words", "retry in 3 seconds or 5 minutes", "retry in <duration> or <duration>"},
		{"duration micro", "p99 850µs", "p99 <duration>"},
		{"hex 0x", "fault at 0x7ffd4c2e1a", "fault at <hex>"},
		{"hex long", "object a1b2c3d4e5f6 gone", "object <hex> gone"},
		{"int", "user 42 has 7 items", "user <int> has <int> items"},
		{"int negative", "balance -17 below zero", "balance <int> below zero"},
		{"int after hyphen", "order-123 failed", "order-<int> failed"},
		{"int size", "payload 10MB over limit", "payload <int>MB over limit"},
		{"float", "ratio 0.75 and 1.5e-3", "ratio <float> and <float>"},
		{"quoted", `invalid value name="John Smith" for field='x y'`, "invalid value name=<quoted> for field=<quoted>"},
		{"quoted json", `{"user":"bob","id":7}`, `{"user":<quoted>,"id":<int>}`},
		{"bool", "flag enabled=true debug=False", "flag enabled=<bool> debug=<bool>"},
		{"two lines", "first 1\n\n   \nsecond 2\nthird 3", "first <int>\nsecond <int>"},
		// What must stay.
		{"words with digits", "user_42 abc123 x86 s3", "user_42 abc123 x86 s3"},
		{"hex words without digits", "deadbeef cafebabe accepted", "deadbeef cafebabe accepted"},
		{"java class", "java.lang.NullPointerException in com.acme.Foo", "java.lang.NullPointerException in com.acme.Foo"},
		{"python attribute", "'NoneType' object has no attribute 'app.config'", "'NoneType' object has no attribute 'app.config'"},
		{"file names", "cannot read config.yaml or main.py", "cannot read config.yaml or main.py"},
		{"ruby constant", "uninitialized constant Foo::Bar", "uninitialized constant Foo::Bar"},
		{"month and day alone", "released May 5 to users", "released May <int> to users"},
		{"bool without =", "value true is invalid", "value true is invalid"},
		{"unicode", "Benutzer Müller123 nicht gefunden: 42", "Benutzer Müller123 nicht gefunden: <int>"},
		{"prefixed_ids", "user usr_83644 and order42731 exceeded quota", "user usr_<int> and order<int> exceeded quota"},
		{"dashed_hex_id", "invoice 9f3e2a1b-4521dd-a8c3 not found", "invoice <hex> not found"},
		{"dashed_hex_not_a_date", "deadbeef-cafe is a word pair", "deadbeef-cafe is a word pair"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Parameterize(tt.in); got != tt.want {
				t.Errorf("Parameterize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestParameterizeVersion1 pins what version 1 did differently.
func TestParameterizeVersion1(t *testing.T) {
	t.Parallel()
	v1 := &algorithms[1].params
	tests := []struct{ in, want string }{
		{"listen [::1]:8080", "listen [<ip>]:<int>"},
		{"dial tcp 10.0.12.7:5432: refused", "dial tcp <ip>:<int>: refused"},
		{"connect ECONNREFUSED ::1:5432", "connect ECONNREFUSED <ip>"},
		{"GET /forum/poll/?EIO=3&sid=Q9z39iYh", "GET /forum/poll/?EIO=<int>&sid=Q9z39iYh"},
		{"ERROR 1 --- [main] x  :  y", "ERROR <int> --- [main] x  :  y"},
		{"session j63zfamesa90bn0ioew25nfxuvmu0nvz expired", "session j63zfamesa90bn0ioew25nfxuvmu0nvz expired"},
	}
	for _, tt := range tests {
		if got := parameterize(tt.in, v1); got != tt.want {
			t.Errorf("version 1: parameterize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestParameterizeValue checks the rules for exception values: quoted
// strings and paths are data too.
func TestParameterizeValue(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"'user_8812'", "<quoted>"},
		{"[Errno 2] No such file or directory: '/tmp/x/abc.txt'", "[Errno <int>] No such file or directory: <quoted>"},
		{"open /var/lib/app/0001.wal: too many open files", "open <path>: too many open files"},
		{`Cannot invoke "String.length()" because "<local1>" is null`, "Cannot invoke <quoted> because <quoted> is null"},
		{"can't find user's file", "can't find user's file"},
		{"Index 5 out of bounds for length 3", "Index <int> out of bounds for length <int>"},
		{"index out of range [5] with length 3", "index out of range [<int>] with length <int>"},
		{"<app.models.User object at 0x7f3a2b1c9d00>", "<app.models.User object at <hex>>"},
		{"unterminated 'quote and `tick", "unterminated 'quote and `tick"},
		{"a/b/c relative", "a/b/c relative"},
	}
	for _, tt := range tests {
		if got := parameterize(tt.in, current.valueRules()); got != tt.want {
			t.Errorf("value parameterize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestParameterizeMerges checks that messages differing only in variable
// parts give one template and that different messages do not.
func TestParameterizeMerges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b  string
		merge bool
	}{
		{"user 42 not found", "user 1337 not found", true},
		{"timeout after 150ms to 10.0.0.1", "timeout after 2.5s to 10.0.0.2", true},
		{"order 3f2a1b9c-1234-4abc-8def-0123456789ab failed", "order 00000000-0000-4000-8000-000000000000 failed", true},
		{"GET https://a.example.com/x?id=1", "GET https://b.example.com/y/z", true},
		{"at 2024-01-02T15:04:05Z", "at 2025-12-31T23:59:59.999Z", true},
		{"user 42 not found", "order 42 not found", false},
		{"connection refused", "connection reset", false},
		{"connect ECONNREFUSED ::1:5432", "connect ECONNREFUSED 127.0.0.1:5432", true},
		{"dial tcp 127.0.0.1:6379: connect: connection refused", "dial tcp 10.0.3.12:5432: connect: connection refused", false},
		{"http: panic serving [::1]:60825: boom", "http: panic serving 10.42.3.17:51234: boom", true},
	}
	for _, tt := range tests {
		ga, gb := Parameterize(tt.a), Parameterize(tt.b)
		if got := ga == gb; got != tt.merge {
			t.Errorf("Parameterize(%q) = %q, Parameterize(%q) = %q: merged %v, want %v", tt.a, ga, tt.b, gb, got, tt.merge)
		}
	}
}
