package httpapi

import (
	"github.com/danielgtaylor/huma/v2"

	"github.com/errata-dev/errata/internal/notify/chat"
	"github.com/errata-dev/errata/internal/store"
)

// ChannelFormat is a webhook channel's format in the API: its OpenAPI enum,
// which huma validates requests against, is chat's registry of formats.
type ChannelFormat string

// Schema is a string enum of chat.Formats.
func (ChannelFormat) Schema(huma.Registry) *huma.Schema { return enumSchema(chat.Formats()) }

// DeliveryFormat is what a delivery sends: a channel format, or email.
type DeliveryFormat string

// Schema is a string enum of chat.Formats and email.
func (DeliveryFormat) Schema(huma.Registry) *huma.Schema {
	return enumSchema(append(chat.Formats(), store.FormatEmail))
}

func enumSchema(values []string) *huma.Schema {
	s := &huma.Schema{Type: huma.TypeString}
	for _, v := range values {
		s.Enum = append(s.Enum, v)
	}
	return s
}
