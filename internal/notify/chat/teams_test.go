package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/notify/notice"
	"github.com/errata-dev/errata/internal/testtool"
)

// adaptiveCardsVersion is the adaptivecards npm package the cards are
// checked with; .ci/run installs it.
const adaptiveCardsVersion = "3.0.6"

// adaptiveCardsParser returns node and the path of the adaptivecards
// package's browser bundle, which parses cards without a DOM.
func adaptiveCardsParser(t *testing.T) (node, lib string) {
	t.Helper()
	pkg := testtool.NPMPackage(t, "adaptivecards", adaptiveCardsVersion)
	return testtool.Program(t, "node"), filepath.Join(pkg, "dist", "adaptivecards.js")
}

// TestTeamsAdaptiveCard parses every Teams card (the golden samples and
// the hostile ones) with the adaptivecards package, for version 1.4: no
// parse or validation event, and every property known to the parser.
func TestTeamsAdaptiveCard(t *testing.T) {
	t.Parallel()
	node, lib := adaptiveCardsParser(t)
	type entry struct {
		Name string          `json:"name"`
		Card json.RawMessage `json:"card"`
	}
	var cards []entry
	add := func(name string, n notice.Notification) {
		r, err := Render(Teams, n)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Attachments []struct{ Content json.RawMessage }
		}
		if err := json.Unmarshal(r.Body, &m); err != nil || len(m.Attachments) != 1 {
			t.Fatalf("%s: %v %s", name, err, r.Body)
		}
		cards = append(cards, entry{name, m.Attachments[0].Content})
	}
	for _, c := range goldenCases {
		add(c.name, c.n())
	}
	hostile := hostileCases()
	names := make([]string, 0, len(hostile))
	for name := range hostile {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		add(name, hostile[name])
	}
	// A control: a card with a misspelt property must be reported, or the
	// check proves nothing.
	control := strings.Replace(string(cards[0].Card), `"weight":`, `"wieght":`, 1)
	cards = append(cards, entry{"control", json.RawMessage(control)})

	in, err := json.Marshal(cards)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "adaptivecard-check.js"), lib)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node adaptivecard-check.js: %v\n%s", err, stderr.Bytes())
	}
	var results []struct {
		Name     string   `json:"name"`
		Problems []string `json:"problems"`
	}
	if err := json.Unmarshal(out, &results); err != nil || len(results) != len(cards) {
		t.Fatalf("checker answered %d results for %d cards (%v): %s", len(results), len(cards), err, out)
	}
	for _, r := range results {
		switch {
		case r.Name == "control" && len(r.Problems) == 0:
			t.Errorf("the control card with a misspelt property was not reported")
		case r.Name != "control" && len(r.Problems) > 0:
			t.Errorf("teams card %s: %s", r.Name, strings.Join(r.Problems, "; "))
		}
	}
}
