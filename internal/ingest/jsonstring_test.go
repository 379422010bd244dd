package ingest

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAppendJSONString(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in          string
		scrubNUL    bool
		want        string
		decodesTo   string
		wantInvalid bool
	}{
		{in: "", want: `""`},
		{in: `q"uote\back <&>`, want: `"q\"uote\\back <&>"`},
		{in: "tab\tnl\ncr\r", want: `"tab\tnl\ncr\r"`},
		{in: "ctl\x00\x1f", want: `"ctl\u0000\u001f"`},
		{in: "ctl\x00\x1f", scrubNUL: true, want: "\"ctl\uFFFD\\u001f\"", decodesTo: "ctl\uFFFD\x1f"},
		{in: "é日本", want: `"é日本"`},
		{in: "bad\xff\xfeutf8", want: "\"bad\uFFFD\uFFFDutf8\"", wantInvalid: true},
	}
	for _, tc := range cases {
		out, valid := AppendJSONString([]byte("x"), tc.in, tc.scrubNUL)
		if got := string(out[1:]); got != tc.want || valid == tc.wantInvalid {
			t.Errorf("AppendJSONString(%q, %v) = %s, %v; want %s, %v", tc.in, tc.scrubNUL, got, valid, tc.want, !tc.wantInvalid)
		}
		var got string
		if err := json.Unmarshal(out[1:], &got); err != nil {
			t.Errorf("%q: %s does not decode: %v", tc.in, out[1:], err)
			continue
		}
		want := tc.decodesTo
		if want == "" {
			want = strings.ToValidUTF8(tc.in, "\uFFFD")
			if tc.wantInvalid {
				want = "bad\uFFFD\uFFFDutf8"
			}
		}
		if got != want {
			t.Errorf("%q decodes to %q, want %q", tc.in, got, want)
		}
	}
}
