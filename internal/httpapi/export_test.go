package httpapi

// TokenScope exposes tokenScope to the external tests.
var TokenScope = tokenScope
