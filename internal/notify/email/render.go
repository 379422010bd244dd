package email

import (
	"bytes"
	"embed"
	htemplate "html/template"
	"net/url"
	"strings"
	ttemplate "text/template"

	"github.com/errata-dev/errata/internal/mail"
)

//go:embed templates
var templateFS embed.FS

// templates is one email's text and HTML templates, each joined with the
// shared layout (which calls the email's "content").
type templates struct {
	text *ttemplate.Template
	html *htemplate.Template
}

// The templates are parsed once, from files inside the binary: a parse
// failure is a build defect, caught by the tests.
var (
	ticketTemplates       = parse("ticket")
	digestTemplates       = parse("digest")
	testTemplates         = parse("test")
	invitationTemplates   = parse("invitation")
	confirmationTemplates = parse("confirmation")
	assignmentTemplates   = parse("assignment")
	verificationTemplates = parse("verification")
)

func parse(name string) templates {
	return templates{
		text: ttemplate.Must(ttemplate.New(name).ParseFS(templateFS, "templates/layout.txt", "templates/"+name+".txt")),
		html: htemplate.Must(htemplate.New(name).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")),
	}
}

// page is what every email's layout shows.
type page struct {
	Subject string
	Project string
	// Why says, in the footer, why the email arrives at this address.
	Why string
	// Unsubscribe is the one-click unsubscribe URL and ChannelURL the
	// channel's settings page, each "" when the address given was not a
	// usable http(s) URL.
	Unsubscribe, ChannelURL string
}

// Links are where a channel's email points its reader, each an absolute
// http(s) URL or "".
type Links struct {
	// Unsubscribe stops the channel for the address the email went to
	// without an account: RFC 8058's one-click URL, sent as List-Unsubscribe
	// with List-Unsubscribe-Post, and the footer's unsubscribe link.
	Unsubscribe string
	// Channel is the channel's page in the dashboard (for its members).
	Channel string
}

// newPage is the page of a notification of a channel of project.
func newPage(project string, links Links) page {
	p := page{Project: line(project), Unsubscribe: httpURL(links.Unsubscribe), ChannelURL: httpURL(links.Channel)}
	p.Why = "You receive this email because a notification channel of the Errata project " + p.Project + " sends to this address."
	return p
}

// render executes both templates on v. Should one fail (a defect the tests
// would catch), the email still goes out as text saying where to look,
// rather than an alert being lost. An unsubscribe URL becomes RFC 8058's
// one-click List-Unsubscribe and List-Unsubscribe-Post header fields: a
// mail client's "Unsubscribe" button POSTs to it.
func render(t templates, v interface{ subject() string }, unsubscribeURL string) mail.Message {
	m := mail.Message{Subject: v.subject(), Headers: map[string]string{}}
	if u := httpURL(unsubscribeURL); u != "" {
		m.Headers["List-Unsubscribe"] = "<" + u + ">"
		m.Headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
	}
	var text, html bytes.Buffer
	terr := t.text.ExecuteTemplate(&text, "layout", v)
	herr := t.html.ExecuteTemplate(&html, "layout", v)
	if terr != nil || herr != nil {
		m.Text = m.Subject + "\n\nThis notification could not be rendered; see the Errata dashboard.\n"
		return m
	}
	m.Text, m.HTML = text.String(), html.String()
	return m
}

func (p page) subject() string { return p.Subject }

// httpURL returns u when it is an absolute http(s) URL that can sit in a
// header between angle brackets, and "" otherwise.
func httpURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" || strings.ContainsAny(u, " <>\"\\") {
		return ""
	}
	return u
}
