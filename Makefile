# Errata: the two set-up commands of the README are `make run` and `make test`.

# Tests run the store-level and API suites on SQLite and on this PostgreSQL
# server (each test creates and drops its own database on it).
ERRATA_TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable
export ERRATA_TEST_DATABASE_URL

.PHONY: run build test vet bench setup dist

## setup: install what `make test` needs (scripts/setup; `scripts/setup --check` only reports)
setup:
	scripts/setup

## run: start the server on the embedded SQLite database in ./data
run:
	go run ./cmd/errata serve

## build: build ./errata
build:
	go build -o errata ./cmd/errata

# The release version stamped into the binaries (errata version).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# The platforms of make dist, GOOS/GOARCH, and its directory.
DIST_PLATFORMS ?= linux/amd64 linux/arm64 darwin/arm64
DIST ?= dist

## dist: static release binaries $(DIST)/errata-<version>-<os>-<arch> for
## DIST_PLATFORMS, with the version stamped, and their $(DIST)/SHA256SUMS
## (scripts/build, the Dockerfile's build too)
dist:
	rm -rf $(DIST) && mkdir -p $(DIST)
	set -e; for p in $(DIST_PLATFORMS); do \
		echo "dist: $$p"; \
		GOOS=$${p%/*} GOARCH=$${p#*/} VERSION=$(VERSION) scripts/build $(DIST)/errata-$(VERSION)-$${p%/*}-$${p#*/}; \
	done
	cd $(DIST) && if command -v sha256sum >/dev/null; then sha256sum errata-*; else shasum -a 256 errata-*; fi > SHA256SUMS
	cat $(DIST)/SHA256SUMS

# SDKTEST is the module of the real Sentry SDKs' tests (sentry-go, and
# @sentry/node under node): its own go.mod keeps the SDK out of the binary.
SDKTEST := internal/sentry/sdktest

## test: vet and run every test with the race detector, on SQLite and PostgreSQL,
## the Sentry SDK module's too; the browser tests' screenshots land in
## test-artifacts/_artifacts/
## (-p 4: four packages at once; the long ones, httpapi and store, mostly wait on
## processing and commits, so on two cores a second pair shortens the run;
## -timeout 45m: httpapi alone took 25 of a 30-minute run under the race
## detector on two cores on 2026-12-02, too close to 30m)
## (RACE_GOFLAGS: the race detector does not instrument modernc.org's SQLite
## and libc, C translated to Go, whose every memory access it otherwise
## tracks: the store's tests took 2.5 times the CPU with it; our code, its
## use of the database included, stays instrumented. Through GOFLAGS, so the
## server binaries tests build with -race get the same.)
RACE_GOFLAGS := -gcflags=modernc.org/sqlite/lib=-race=false -gcflags=modernc.org/libc/...=-race=false
test: vet
	rm -rf test-artifacts && mkdir -p test-artifacts
	GOFLAGS="$(strip $(GOFLAGS) $(RACE_GOFLAGS))" go test -race -count=1 -p 4 -timeout 45m -artifacts -outputdir $(CURDIR)/test-artifacts ./...
	cd $(SDKTEST) && GOFLAGS="$(strip $(GOFLAGS) $(RACE_GOFLAGS))" go test -race -count=1 -timeout 30m -artifacts -outputdir $(CURDIR)/test-artifacts ./...

vet:
	go vet ./...
	cd $(SDKTEST) && go vet ./...
	go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

## bench: run the Go benchmarks (not part of CI)
bench:
	go test -run '^$$' -bench . -benchmem -count 6 ./... | tee bench.txt
