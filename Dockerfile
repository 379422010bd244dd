# syntax=docker/dockerfile:1
#
# Errata in a container: docs/operations.md, "Deploy with Docker".
#
#   docker build --build-arg VERSION=$(git describe --tags --always) -t errata .
#   docker run -d --name errata -p 8080:8080 -p 4317:4317 -v errata-data:/data \
#     -e ERRATA_BASE_URL=https://errata.example.com --stop-timeout 45 errata
#
# The build stage compiles a static binary (pure Go: SQLite included, no cgo)
# with scripts/build, as `make dist` does;
# the final image holds that binary, CA certificates and time zones, and no
# shell. It runs as an unprivileged user and keeps its data in the /data volume.

ARG GO_VERSION=1.26

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG VERSION=dev
ARG TARGETOS TARGETARCH
# scripts/build is make dist's build: static, -trimpath, the version stamped.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    GOOS=$TARGETOS GOARCH=$TARGETARCH VERSION=${VERSION} scripts/build /out/errata \
 && mkdir /out/data /out/backups

# distroless/static: CA certificates (webhooks and SMTP over TLS), /etc/passwd
# with the nonroot user (65532), tzdata; no shell, no package manager.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/errata /usr/local/bin/errata
# A named volume mounted on /data (or /backups, for errata backup) starts as
# a copy of this directory, owned by the user the server runs as.
COPY --from=build --chown=65532:65532 /out/data /data
COPY --from=build --chown=65532:65532 /out/backups /backups
ENV ERRATA_DATA_DIR=/data \
    ERRATA_ADDR=0.0.0.0:8080 \
    ERRATA_GRPC_ADDR=0.0.0.0:4317
VOLUME /data
WORKDIR /data
# 8080: HTTP API, dashboard, Sentry and OTLP/HTTP ingestion, /healthz,
# /readyz, /metrics. 4317: OTLP/gRPC.
EXPOSE 8080 4317
USER 65532:65532
# The image has no shell or curl: the binary asks its own /healthz, on
# loopback when ERRATA_ADDR is 0.0.0.0.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["/usr/local/bin/errata", "healthcheck", "--timeout", "4s"]
# SIGTERM (docker stop) drains within ERRATA_SHUTDOWN_TIMEOUT (30s): give
# docker stop more than that (--stop-timeout 45, compose stop_grace_period).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/errata"]
CMD ["serve"]
LABEL org.opencontainers.image.title="Errata" \
      org.opencontainers.image.description="Self-hosted error tracking" \
      org.opencontainers.image.source="https://github.com/errata-dev/errata"
