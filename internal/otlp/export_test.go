package otlp

// Unexported checks, for the external tests.
var (
	CheckProto = checkProto
	CheckJSON  = checkJSON
)

// KeptGzipCalls is how many compressed messages gRPC has handed to the
// Export handler to inflate.
func KeptGzipCalls() int64 { return keptGzipCalls.Load() }
