package email_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/notify/email"
)

// TestRenderAssignmentOfSeveral: an email about a bulk change's groups
// lists the first 20, each linked, and links the rest; a title can add no
// markup.
func TestRenderAssignmentOfSeveral(t *testing.T) {
	t.Parallel()
	a := email.Assignment{AssignedBy: "Ada", Project: "web", ListURL: "https://errata.example/projects/prj_1/groups?query=assigned%3Ame"}
	for i := range 25 {
		a.Groups = append(a.Groups, email.AssignedGroup{Title: fmt.Sprintf("<b>TypeError %d</b>", i), URL: fmt.Sprintf("https://errata.example/groups/grp_%d", i)})
	}
	m := email.RenderAssignment(a)
	if want := "[web] 25 error groups assigned to you"; m.Subject != want {
		t.Errorf("Subject = %q, want %q", m.Subject, want)
	}
	contains(t, "text", m.Text, "Ada assigned 25 error groups of web to you:", "- <b>TypeError 19</b>\n  https://errata.example/groups/grp_19",
		"and 5 more:\n"+a.ListURL)
	contains(t, "html", m.HTML, `<a href="https://errata.example/groups/grp_0">&lt;b&gt;TypeError 0&lt;/b&gt;</a>`, "and 5 more",
		`href="https://errata.example/projects/prj_1/groups?query=assigned%3Ame"`)
	lacks(t, "text", m.Text, "TypeError 20")
	lacks(t, "html", m.HTML, "TypeError 20", "<b>")
	if strings.Contains(m.Text, "Open it") {
		t.Errorf("an email about several groups reads as one about one:\n%s", m.Text)
	}
}
