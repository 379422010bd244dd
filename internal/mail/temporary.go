package mail

import (
	"errors"
	"net/textproto"

	gomail "github.com/wneessen/go-mail"
)

// Temporary reports whether a send that failed with err may succeed if
// tried again later (CONTRACT 6: SMTP 4xx is retried like an HTTP 5xx, SMTP
// 5xx gives up).
//
//   - An SMTP reply (to greeting, AUTH, MAIL, RCPT or DATA): 4xx is
//     temporary, 5xx is permanent.
//   - A message that cannot be built (bad address, bad header) is
//     permanent.
//   - Everything else is temporary: refused or dropped connections,
//     time-outs, TLS failures, a cancelled context. Losing an alert costs
//     more than one more attempt, and the retry schedule is bounded.
func Temporary(err error) bool {
	if err == nil {
		return false
	}
	if code := ReplyCode(err); code != 0 {
		return code/100 == 4
	}
	var bad *invalidError
	if errors.As(err, &bad) {
		return false
	}
	var se *gomail.SendError
	if errors.As(err, &se) {
		switch se.Reason {
		case gomail.ErrGetSender, gomail.ErrGetRcpts, gomail.ErrNoUnencoded:
			return false
		}
	}
	return true
}

// ReplyCode returns the SMTP reply code (4xx or 5xx) the server answered
// with when err is such a reply, and 0 otherwise.
func ReplyCode(err error) int {
	// go-mail's SendError (MAIL, RCPT, DATA) does not unwrap to the
	// textproto.Error it holds, but reads the code from it.
	var se *gomail.SendError
	if errors.As(err, &se) && se.ErrorCode() != 0 {
		return se.ErrorCode()
	}
	var te *textproto.Error // greeting, EHLO, STARTTLS, AUTH
	if errors.As(err, &te) && te.Code >= 400 && te.Code < 600 {
		return te.Code
	}
	return 0
}
