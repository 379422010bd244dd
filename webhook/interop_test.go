package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/testtool"
)

// The Python and Node.js verifiers of docs/webhooks.md live in testdata/ and
// run here against deliveries built with Sign, so the snippets users copy are
// proven to accept and reject exactly what Verify does.

// pythonHarness imports testdata/verify.py (argv[1] is its directory) and
// verifies each case read from stdin.
const pythonHarness = `
import base64, json, sys
sys.path.insert(0, sys.argv[1])
from verify import verify_webhook, WebhookVerificationError
out = []
for c in json.load(sys.stdin):
    try:
        verify_webhook(base64.b64decode(c["body"]), c["header"], c["secrets"], now=c["now"])
        out.append({"ok": True, "error": ""})
    except WebhookVerificationError as e:
        out.append({"ok": False, "error": str(e)})
json.dump(out, sys.stdout)
`

// nodeHarness requires testdata/verify.js (argv[1]) and does the same.
const nodeHarness = `
const { verifyWebhook, WebhookVerificationError } = require(process.argv[1]);
const out = [];
for (const c of JSON.parse(require("fs").readFileSync(0, "utf8"))) {
  try {
    verifyWebhook(Buffer.from(c.body, "base64"), c.header, c.secrets, c.now);
    out.push({ ok: true, error: "" });
  } catch (e) {
    if (!(e instanceof WebhookVerificationError)) throw e;
    out.push({ ok: false, error: e.message });
  }
}
process.stdout.write(JSON.stringify(out));
`

// interopCase is one delivery for the three verifiers.
type interopCase struct {
	Name    string   `json:"name"`
	Body    []byte   `json:"body"` // base64 in JSON
	Header  string   `json:"header"`
	Secrets []string `json:"secrets"`
	Now     float64  `json:"now"` // Unix seconds, with a fraction
	Want    bool     `json:"-"`   // accepted
}

func interopCases() []interopCase {
	body := []byte(vecBody)
	tampered := bytes.Replace(body, []byte(`"ops"`), []byte(`"opt"`), 1)
	now := float64(vecT)
	good := Sign(body, vecNow, vecSecret)
	_, goodV1, _ := strings.Cut(good, ",")
	other := Sign(body, vecNow, otherKey)
	_, otherV1, _ := strings.Cut(other, ",")
	s := []string{vecSecret}
	return []interopCase{
		{"fixed vector", body, vecHeader, s, now, true},
		{"signed by Sign", body, good, s, now + 1.5, true},
		{"tampered body", tampered, good, s, now, false},
		{"stale timestamp", body, Sign(body, vecNow.Add(-301*time.Second), vecSecret), s, now, false},
		{"future timestamp", body, Sign(body, vecNow.Add(301*time.Second), vecSecret), s, now, false},
		{"exactly 300 s late", body, good, s, now + 300, true},
		{"exactly 300 s early", body, good, s, now - 300, true},
		{"300.5 s late", body, good, s, now + 300.5, false},
		{"uppercase hex signature", body, "t=1700000000,v1=" + strings.ToUpper(vecSig), s, now, false},
		{"one uppercase hex digit", body, "t=1700000000,v1=" + vecSig[:62] + "A2" /* vecSig ends in a2 */, s, now, false},
		{"v1 of 63 characters", body, vecHeader[:len(vecHeader)-1], s, now, false},
		{"v1 of 65 characters", body, vecHeader + "0", s, now, false},
		{"t of 13 digits", body, "t=0" + strings.TrimPrefix(Sign(body, vecNow, vecSecret), "t="), s, now, false},
		{"t of 12 digits, signed as sent", body, "t=001700000000,v1=" + hmacHex("001700000000", vecBody, vecSecret), s, now, true},
		{"t negative", body, "t=-1700000000,v1=" + hmacHex("-1700000000", vecBody, vecSecret), s, -now, false},
		{"t in non-ASCII digits", body, "t=١٧٠٠٠٠٠٠٠٠,v1=" + hmacHex("١٧٠٠٠٠٠٠٠٠", vecBody, vecSecret), s, now, false},
		{"no t", body, goodV1, s, now, false},
		{"no v1", body, "t=1700000000", s, now, false},
		{"two t", body, "t=1700000000," + good, s, now, false},
		{"no header", body, "", s, now, false},
		{"unknown scheme ignored", body, "t=1700000000,v0=whatever," + goodV1, s, now, true},
		{"rotation, good v1 first", body, good + "," + otherV1, s, now, true},
		{"rotation, good v1 last", body, other + "," + goodV1, s, now, true},
		{"rotation, receiver with both secrets", body, other, []string{vecSecret, otherKey}, now, true},
		{"wrong secret", body, other, s, now, false},
		{"secret without whsec_", body, good, []string{strings.TrimPrefix(vecSecret, "whsec_")}, now, false},
		{"no secret", body, good, []string{}, now, false},
		{"only an empty secret", body, "t=1700000000,v1=" + hmacHex("1700000000", vecBody, ""), []string{""}, now, false},
		{"spaces and tabs around entries", body, " t=1700000000 ,\t" + goodV1 + " ", s, now, true},
		{"space inside an entry", body, "t= 1700000000," + goodV1, s, now, false},
		{"empty entry", body, "t=1700000000,," + goodV1, s, now, false},
		{"newline around an entry", body, "t=1700000000,\n" + goodV1, s, now, false},
		{"empty body", []byte{}, Sign(nil, vecNow, vecSecret), s, now, true},
	}
}

// goVerdict is Verify's answer for c.
func goVerdict(c interopCase) error {
	sec := int64(c.Now)
	if float64(sec) > c.Now { // floor, for negative times
		sec--
	}
	now := time.Unix(sec, int64((c.Now-float64(sec))*1e9))
	return Verify(c.Body, c.Header, now, c.Secrets...)
}

func TestInteropCasesMatchGo(t *testing.T) {
	t.Parallel()
	for _, c := range interopCases() {
		if err := goVerdict(c); (err == nil) != c.Want {
			t.Errorf("%s: Verify() = %v, want accepted = %v", c.Name, err, c.Want)
		}
	}
}

func TestDocsVerifiers(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		interpreter string
		args        []string
	}{
		// -B: no __pycache__ in testdata.
		{"python3", []string{"-B", "-c", pythonHarness, dir}},
		{"node", []string{"-e", nodeHarness, filepath.Join(dir, "verify.js")}},
	}
	cases := interopCases()
	input, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.interpreter, func(t *testing.T) {
			t.Parallel()
			bin := testtool.Program(t, tt.interpreter) // the docs' verifier in that language
			cmd := exec.Command(bin, tt.args...)
			cmd.Stdin = bytes.NewReader(input)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v\n%s", tt.interpreter, err, stderr.Bytes())
			}
			var got []struct {
				OK    bool   `json:"ok"`
				Error string `json:"error"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s printed %q: %v", tt.interpreter, out, err)
			}
			if len(got) != len(cases) {
				t.Fatalf("%s answered %d cases, want %d", tt.interpreter, len(got), len(cases))
			}
			for i, c := range cases {
				if got[i].OK != c.Want {
					t.Errorf("%s: %s: accepted = %v (%s), want %v", tt.interpreter, c.Name, got[i].OK, got[i].Error, c.Want)
				}
			}
		})
	}
}

// TestDocsQuoteTheTestedCode checks that docs/webhooks.md carries, byte for
// byte, the code the tests run: the two verifier files and the Go receiver
// of example_handler_test.go, and the test vector.
func TestDocsQuoteTheTestedCode(t *testing.T) {
	t.Parallel()
	docs, err := os.ReadFile(filepath.Join("..", "docs", "webhooks.md"))
	if err != nil {
		t.Fatalf("read the docs: %v", err)
	}
	handler, err := os.ReadFile("example_handler_test.go")
	if err != nil {
		t.Fatal(err)
	}
	receiver, err := between(string(handler), "// ---- quoted in docs/webhooks.md: begin ----\n\n", "\n// ---- quoted in docs/webhooks.md: end ----")
	if err != nil {
		t.Fatalf("example_handler_test.go: %v", err)
	}
	tests := []struct {
		name, fence, want string
	}{
		{"testdata/verify.py", "```python\n", ""},
		{"testdata/verify.js", "```js\n", ""},
		{"example_handler_test.go", "```go\n", receiver},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := tt.want
			if want == "" {
				b, err := os.ReadFile(tt.name)
				if err != nil {
					t.Fatal(err)
				}
				want = string(b)
			}
			quoted, err := between(string(docs), "<!-- quoted from webhook/"+tt.name+" -->\n"+tt.fence, "```\n<!-- end of quote -->")
			if err != nil {
				t.Fatalf("docs/webhooks.md: %v", err)
			}
			if quoted != want {
				t.Errorf("docs/webhooks.md quotes webhook/%s as\n%s\nwant\n%s", tt.name, quoted, want)
			}
		})
	}
	for _, s := range []string{vecSecret, vecBody, vecHeader} {
		if !strings.Contains(string(docs), s) {
			t.Errorf("docs/webhooks.md lacks the test vector's %q", s)
		}
	}
}

// between returns the text of s after begin and before the next end.
func between(s, begin, end string) (string, error) {
	_, rest, ok := strings.Cut(s, begin)
	if !ok {
		return "", errors.New("no " + strings.TrimSpace(begin))
	}
	text, _, ok := strings.Cut(rest, end)
	if !ok {
		return "", errors.New("no " + strings.TrimSpace(end) + " after " + strings.TrimSpace(begin))
	}
	return text, nil
}
