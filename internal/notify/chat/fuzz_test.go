package chat

import (
	"testing"

	"github.com/errata-dev/errata/internal/notify/notice"
)

// FuzzRender renders a ticket, a digest and a test built from arbitrary
// text in every format: each must come out valid and within every limit.
// CI runs the seeds in testdata/fuzz/FuzzRender.
func FuzzRender(f *testing.F) {
	f.Add("TypeError: x is undefined", "x is undefined in checkout", "Shop")
	f.Fuzz(func(t *testing.T, title, summary, name string) {
		tk := sampleTicket()
		tk.Project.Name = name
		tk.Ticket.Title, tk.Ticket.Summary, tk.Ticket.Service, tk.Ticket.Severity = title, summary, name, title
		tk.Ticket.Facts = append(tk.Ticket.Facts, notice.Fact{Name: name, Value: summary})
		d := sampleDigest()
		d.Project.Name = name
		d.Digest.Timezone = name
		for i := range d.Digest.Tickets {
			d.Digest.Tickets[i].Title, d.Digest.Tickets[i].Severity = title, summary
		}
		d.Digest.FailingChannels = append(d.Digest.FailingChannels, notice.FailingChannel{Name: title, Type: summary})
		ts := notice.Notification{Project: notice.Ref{Name: name}, Test: &notice.Test{Channel: notice.Ref{Name: title}, URL: summary}}
		for _, format := range Formats()[1:] {
			for _, n := range []notice.Notification{tk, d, ts} {
				r, err := Render(format, n)
				if err != nil {
					t.Fatal(err)
				}
				checkLimits(t, format, r)
			}
		}
	})
}
