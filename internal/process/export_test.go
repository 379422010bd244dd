package process

// Backlogged reports whether the helper workers are at work: the latest
// claim took a full ClaimBatches.
func (p *Processor) Backlogged() bool { return p.backlog.Load() }
