module github.com/errata-dev/errata/internal/sentry/sdktest

go 1.26.8

replace github.com/errata-dev/errata => ../../..

require (
	github.com/errata-dev/errata v0.0.0-00010101000000-000000000000
	github.com/getsentry/sentry-go v0.50.0
)

require (
	github.com/andybalholm/brotli v1.3.0 // indirect
	github.com/goccy/go-json v0.12.0 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)
