package org

import (
	"strings"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/text"
)

// CheckName applies the rule for the names of organizations, projects and
// API keys, the one the API's schema states (httpapi.NameBody): 1 to 100
// characters, not blank, and no control character but tab and newline
// (text.Check). The services check it, so every caller (API, dashboard,
// command line) gets the same answer.
func CheckName(name string) error {
	if utf8.RuneCountInString(name) > 100 || strings.TrimSpace(name) == "" {
		return problem.New("validation-failed", "name: 1 to 100 characters, not blank")
	}
	return text.Check("name", name)
}
