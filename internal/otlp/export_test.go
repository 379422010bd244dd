package otlp

// Unexported checks, for the external tests.
var (
	CheckProto = checkProto
	CheckJSON  = checkJSON
)
