package chat_test

import (
	"fmt"

	"github.com/errata-dev/errata/internal/notify/chat"
	"github.com/errata-dev/errata/internal/notify/notice"
)

// A channel test in ntfy's format: the body is the message, the rest goes
// in headers, and the whole is POSTed to the topic's URL with the
// Service-* headers signed over r.Body.
func ExampleRender() {
	n := notice.Notification{
		Project: notice.Ref{ID: "prj_01", Name: "Shop"},
		Test:    &notice.Test{Channel: notice.Ref{ID: "chn_01", Name: "phones"}, URL: "https://errata.example.com/channels/chn_01"},
	}
	r, err := chat.Render(chat.Ntfy, n)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.ContentType)
	for _, h := range []string{chat.NtfyTitle, chat.NtfyPriority, chat.NtfyTags, chat.NtfyClick} {
		fmt.Printf("%s: %s\n", h, r.Headers[h])
	}
	fmt.Printf("\n%s\n", r.Body)
	// Output:
	// text/plain; charset=utf-8
	// X-Title: Test notification
	// X-Priority: 3
	// X-Tags: white_check_mark,test
	// X-Click: https://errata.example.com/channels/chn_01
	//
	// Test notification for phones
	//
	// This is a test of the channel phones of the Errata project Shop. If you can read it, ticket alerts and digests for this channel reach this chat.
}
