package grouping

import (
	"strings"
	"testing"
)

// TestParseMono checks Mono's frames under version 2 (IL offsets and
// assembly ids drop out) and that version 1 still reads them as it did.
func TestParseMono(t *testing.T) {
	t.Parallel()
	trace := "[ERROR] FATAL UNHANDLED EXCEPTION: System.NullReferenceException: Object reference not set\n" +
		"  at Game.Player._Process (System.Single dt) [0x00001] in <5b8faf5510df4577ac02e8d379d27c53>:0 \n" +
		"  at Game.Main.Run () <IL 0x00012, 0x000c4>\n"
	st := parseStack(trace, current)
	var keys []string
	for _, f := range st.Frames {
		keys = append(keys, f.key())
	}
	if got, want := strings.Join(keys, " "), "Game.Player:_Process Game.Main:Run"; got != want || st.Language != "dotnet" {
		t.Errorf("version 2: %s frames %q, want dotnet %q", st.Language, got, want)
	}
	if len(st.Types) != 1 || st.Types[0] != "System.NullReferenceException" {
		t.Errorf("version 2: types %q", st.Types)
	}
	if v1 := parseStack(trace, algorithms[1]); v1.Language != "javascript" {
		t.Errorf("version 1 reads it as %q, want javascript as before", v1.Language)
	}
}
