package process

import (
	"context"
	"sync"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/store"
)

// Grouping rules (CONTRACT 8) apply to the events processed after they
// change: each run reads the rules of its batches' projects (one indexed
// read), and parses a project's rules again only when their text changed.

// compiledRules caches parsed rules by project with the text they came
// from.
type compiledRules struct {
	mu     sync.Mutex
	byProj map[string]parsedRules
}

type parsedRules struct {
	fingerprint, stackTrace string
	rules                   *grouping.Rules
}

// rulesOf returns the parsed rules of the batches' projects that have any.
// Rules that no longer parse (stored by an older release) are skipped.
func (p *Processor) rulesOf(ctx context.Context, batches []store.Batch) (map[string]*grouping.Rules, error) {
	seen := map[string]bool{}
	var ids []string
	for _, b := range batches {
		if !seen[b.ProjectID] {
			seen[b.ProjectID] = true
			ids = append(ids, b.ProjectID)
		}
	}
	stored, err := p.db.Read().GroupingRulesOf(ctx, ids)
	if err != nil || len(stored) == 0 {
		return nil, err
	}
	c := &p.rules
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byProj == nil {
		c.byProj = map[string]parsedRules{}
	}
	out := make(map[string]*grouping.Rules, len(stored))
	for id, r := range stored {
		pr, ok := c.byProj[id]
		if !ok || pr.fingerprint != r.Fingerprint || pr.stackTrace != r.StackTrace {
			parsed, err := grouping.ParseRules(r.Fingerprint, r.StackTrace)
			if err != nil {
				p.opts.Logger.Warn("a project's grouping rules do not parse; its events group without them", "project_id", id, "err", err)
			}
			pr = parsedRules{fingerprint: r.Fingerprint, stackTrace: r.StackTrace, rules: parsed}
			c.byProj[id] = pr
		}
		if pr.rules != nil {
			out[id] = pr.rules
		}
	}
	return out, nil
}
