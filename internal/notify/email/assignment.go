package email

import (
	"strconv"

	"github.com/errata-dev/errata/internal/mail"
)

// maxListedGroups is how many groups an email about several assignments
// lists; it links to the rest.
const maxListedGroups = 20

// Assignment tells a member one error group, or several (a bulk change),
// were assigned to them.
type Assignment struct {
	// AssignedBy names the member who assigned them.
	AssignedBy string
	Project    string
	// Groups are the groups assigned, at least one.
	Groups []AssignedGroup
	// ListURL is the dashboard's list of the groups assigned to the
	// recipient, linked when there are more than maxListedGroups.
	ListURL string
}

// AssignedGroup is one group an assignment email names: its title and
// its page in the dashboard.
type AssignedGroup struct {
	Title, URL string
}

// assignmentView is an Assignment as its templates show it.
type assignmentView struct {
	page
	AssignedBy, Title, GroupURL string
	// Groups are listed when there are several; More is how many are not.
	Groups      []AssignedGroup
	Count, More int
	ListURL     string
}

// RenderAssignment renders an assignment email. Its subject reads
// "[<project>] assigned to you: <title>", or "[<project>] N error groups
// assigned to you" for several; it carries no List-Unsubscribe (it belongs
// to no channel).
func RenderAssignment(a Assignment) mail.Message {
	v := assignmentView{AssignedBy: cut(line(a.AssignedBy), 100), Count: len(a.Groups)}
	v.Project = cut(line(a.Project), maxProject)
	if len(a.Groups) == 1 {
		v.Title, v.GroupURL = cut(line(a.Groups[0].Title), 300), httpURL(a.Groups[0].URL)
		v.Why = "You receive this email because " + v.AssignedBy + " assigned an error group of " + v.Project + " to you on Errata."
		v.Subject = subject("["+v.Project+"] assigned to you: ", a.Groups[0].Title, "")
		return render(assignmentTemplates, v, "")
	}
	for i, g := range a.Groups {
		if i == maxListedGroups {
			v.More = len(a.Groups) - i
			break
		}
		v.Groups = append(v.Groups, AssignedGroup{Title: cut(line(g.Title), 300), URL: httpURL(g.URL)})
	}
	v.ListURL = httpURL(a.ListURL)
	v.Why = "You receive this email because " + v.AssignedBy + " assigned error groups of " + v.Project + " to you on Errata."
	v.Subject = subject("["+v.Project+"] "+strconv.Itoa(len(a.Groups))+" error groups assigned to you", "", "")
	return render(assignmentTemplates, v, "")
}
