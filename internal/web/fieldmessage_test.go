package web

import "testing"

// TestFieldMessage: a problem shown under its field leaves out the API's
// field name, and says which entry of a list.
func TestFieldMessage(t *testing.T) {
	for in, want := range map[string]string{
		"url: webhook URL must use https":                 "Webhook URL must use https.",
		"filters.environments[1]: must not be blank":      "Entry 2: must not be blank.",
		`email: "x" is not an email address`:              `"x" is not an email address.`,
		"the free plan does not include webhook channels": "The free plan does not include webhook channels.",
	} {
		if got := fieldMessage(in); got != want {
			t.Errorf("fieldMessage(%q) = %q, want %q", in, got, want)
		}
	}
}
