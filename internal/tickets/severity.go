package tickets

import "github.com/errata-dev/errata/internal/ingest"

// Severity is how urgent a ticket is. Severities are ordered, so that a
// channel's minimum severity is a comparison: Medium < High < Critical.
// The zero value is no severity; it is below every other.
type Severity int8

// The severities of tickets (CONTRACT 4).
const (
	Medium Severity = iota + 1
	High
	Critical
)

var severityNames = [...]string{Medium: "medium", High: "high", Critical: "critical"}

// String is the severity's name in the API, the store and the bodies sent
// ("critical", "high", "medium"), or "" for the zero value.
func (s Severity) String() string {
	if s < Medium || s > Critical {
		return ""
	}
	return severityNames[s]
}

// Severities lists every severity, highest first.
func Severities() []Severity { return []Severity{Critical, High, Medium} }

// ParseSeverity reads a severity's name; ok is false for anything else.
func ParseSeverity(name string) (s Severity, ok bool) {
	for _, s := range Severities() {
		if s.String() == name {
			return s, true
		}
	}
	return 0, false
}

// SeverityOf is the severity of a new ticket from its group's level
// (CONTRACT 4): fatal is critical, error high, anything lower medium.
func SeverityOf(level ingest.Level) Severity {
	switch {
	case level >= ingest.Fatal:
		return Critical
	case level == ingest.Error:
		return High
	default:
		return Medium
	}
}

// SpikeSeverity is the severity a ticket is raised to when its group's
// rate spikes.
const SpikeSeverity = Critical
