package email

import "github.com/errata-dev/errata/internal/mail"

// Assignment tells a member an error group was assigned to them.
type Assignment struct {
	// AssignedBy names the member who assigned it.
	AssignedBy string
	Project    string
	Title      string
	// GroupURL is the group's page in the dashboard.
	GroupURL string
}

// assignmentView is an Assignment as its templates show it.
type assignmentView struct {
	page
	AssignedBy, Title, GroupURL string
}

// RenderAssignment renders an assignment email. Its subject reads
// "[<project>] assigned to you: <title>"; it carries no List-Unsubscribe
// (it belongs to no channel).
func RenderAssignment(a Assignment) mail.Message {
	v := assignmentView{AssignedBy: cut(line(a.AssignedBy), 100), Title: cut(line(a.Title), 300), GroupURL: httpURL(a.GroupURL)}
	v.Project = cut(line(a.Project), maxProject)
	v.Why = "You receive this email because " + v.AssignedBy + " assigned an error group of " + v.Project + " to you on Errata."
	v.Subject = subject("["+v.Project+"] assigned to you: ", a.Title, "")
	return render(assignmentTemplates, v, "")
}
