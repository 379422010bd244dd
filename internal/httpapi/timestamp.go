package httpapi

import (
	"time"

	"github.com/errata-dev/errata/internal/view"
)

// TimeFormat is how every timestamp is written: UTC, milliseconds, Z.
const TimeFormat = view.TimeFormat

// Timestamp writes a time as TimeFormat.
type Timestamp = view.Timestamp

func ts(t time.Time) Timestamp { return view.TS(t) }

func tsPtr(t *time.Time) *Timestamp { return view.TSPtr(t) }
