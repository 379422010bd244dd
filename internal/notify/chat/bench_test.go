package chat

import (
	"testing"

	"github.com/errata-dev/errata/internal/notify/notice"
)

// BenchmarkRender renders a sample ticket and a hostile digest (100
// tickets with 10,000-character titles, 50 failing channels) per format.
func BenchmarkRender(b *testing.B) {
	cases := map[string]notice.Notification{"ticket": sampleTicket(), "hostile-digest": hostileCases()["digest-markup"],
		"hostile-ticket": hostileCases()["ticket-astral"]}
	for _, format := range Formats()[1:] {
		for name, n := range cases {
			b.Run(format+"/"+name, func(b *testing.B) {
				for b.Loop() {
					if _, err := Render(format, n); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
