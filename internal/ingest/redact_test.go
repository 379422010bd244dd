package ingest

import (
	"encoding/json"
	"testing"
)

func TestIsSecretKey(t *testing.T) {
	t.Parallel()
	secret := []string{
		"password", "PASSWORD", "Password", "db_password", "dbPassword", "user.password", "passwd", "db-passwd",
		"secret", "client_secret", "clientSecret", "token", "access_token", "accessToken", "csrf-token", "refresh.token",
		"api_key", "API_KEY", "apikey", "apiKey", "x-api-key", "X-Api-Key", "stripe_api_key", "api-key",
		"authorization", "Authorization", "proxy-authorization", "cookie", "Cookie", "set-cookie", "Set-Cookie",
		"session_cookie", "password_", "_token_", "api key",
		// CONTRACT 7's additions.
		"pwd", "DB_PWD", "passphrase", "ssh-passphrase", "private_key", "privateKey", "PRIVATEKEY", "tls.private-key",
		"credential", "credentials", "aws_credentials", "session", "sessionid", "session_id", "JSESSIONID", "auth", "basic_auth",
		"oauth", "access_token", "refresh_token", "client_secret", "x-api-key",
	}
	for _, k := range secret {
		if !defaultRedactor.secret(k) {
			t.Errorf("secret(%q) = false, want true", k)
		}
	}
	plain := []string{
		"", "d", "pass", "word", "user", "token_count", "password_hash", "secrets", "tokens", "cookies", "api",
		"key", "authorize", "authorization_type", "region", "http.method", "user_id", "retry", "http.route",
		"monkey", "passwordx", "émotion", "tökén", "author", "authority", "sessions", "session_count", "credentialed", "pwd_hint",
	}
	for _, k := range plain {
		if defaultRedactor.secret(k) {
			t.Errorf("secret(%q) = true, want false", k)
		}
	}
}

func TestRedactorExtraKeys(t *testing.T) {
	t.Parallel()
	r := NewRedactor([]string{"Ssn", "card-number", "", "--"})
	for k, want := range map[string]bool{
		"ssn": true, "user.SSN": true, "cardNumber": true, "card_number": true, "credit-card-number": true,
		"password": true, "ssn_last4": false, "card": false, "number": false, "": false,
	} {
		if got := r.secret(k); got != want {
			t.Errorf("secret(%q) = %v, want %v", k, got, want)
		}
	}
	got := r.Redact(json.RawMessage(`{"user":{"ssn":"078-05-1120","name":"x"}}`))
	if want := `{"user":{"ssn":"[redacted]","name":"x"}}`; string(got) != want {
		t.Errorf("Redact = %s, want %s", got, want)
	}
	if defaultRedactor.secret("ssn") {
		t.Error("extra keys leaked into the default redactor")
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"none", `{"a":1,"b":{"c":[1,2]}}`, `{"a":1,"b":{"c":[1,2]}}`},
		{"top level", `{"user":"u","password":"hunter2"}`, `{"user":"u","password":"[redacted]"}`},
		{"any value type", `{"token":123,"secret":null,"cookie":["a","b"],"authorization":{"scheme":"Bearer","token":"x"}}`,
			`{"token":"[redacted]","secret":"[redacted]","cookie":"[redacted]","authorization":"[redacted]"}`},
		{"nested", `{"http":{"headers":{"X-Api-Key":"k","Accept":"*/*"}}}`, `{"http":{"headers":{"X-Api-Key":"[redacted]","Accept":"*/*"}}}`},
		{"inside arrays", `{"requests":[{"cookie":"c"},{"ok":true,"set-cookie":"d"}]}`,
			`{"requests":[{"cookie":"[redacted]"},{"ok":true,"set-cookie":"[redacted]"}]}`},
		{"escaped key", `{"pass\u0077ord":"x"}`, `{"pass\u0077ord":"[redacted]"}`},
		{"whitespace kept", `{ "token" : "x" , "a" : 1 }`, `{ "token" : "[redacted]" , "a" : 1 }`},
		{"string values are not keys", `{"note":"password"}`, `{"note":"password"}`},
		{"not an object", `["password"]`, `["password"]`},
		{"invalid JSON", `{"password":`, `{"password":`},
		{"trailing data", `{"password":"x"} 1`, `{"password":"x"} 1`},
		{"empty", ``, ``},
	}
	for _, tt := range tests {
		in := json.RawMessage(tt.in)
		got := Redact(in)
		if string(got) != tt.want {
			t.Errorf("Redact(%s) = %s, want %s (%s)", tt.in, got, tt.want, tt.name)
		}
		if string(in) != tt.in {
			t.Errorf("Redact(%s) changed its input to %s (%s)", tt.in, in, tt.name)
		}
	}
}

func TestRedactReturnsInputWhenNothingToRedact(t *testing.T) {
	t.Parallel()
	in := json.RawMessage(`{"a":{"b":[1,2,3]}}`)
	if got := Redact(in); &got[0] != &in[0] {
		t.Errorf("Redact(%s) returned a copy, want the input itself", in)
	}
}

func TestDecodeAttributesDepthLimit(t *testing.T) {
	t.Parallel()
	nest := func(depth int) string { // depth levels of objects, the attributes object included
		s := "1"
		for range depth - 1 {
			s = `{"a":` + s + `}`
		}
		return `{"a":` + s + `}`
	}
	if _, err := Decode([]byte(body(`"service":"s"`, `{"message":"m","attributes":`+nest(MaxAttributesDepth)+`}`)), received); err != nil {
		t.Errorf("Decode(attributes %d deep) error = %v, want none", MaxAttributesDepth, err)
	}
	if _, err := Decode([]byte(body(`"service":"s"`, `{"message":"m","attributes":`+nest(MaxAttributesDepth+1)+`}`)), received); err == nil {
		t.Errorf("Decode(attributes %d deep) error = nil, want events[0].attributes", MaxAttributesDepth+1)
	}
}
