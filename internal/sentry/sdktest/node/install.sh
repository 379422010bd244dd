#!/usr/bin/env bash
# Installs the npm packages that internal/sentry/sdktest runs under node (the
# real @sentry/node SDK) into a cache directory outside the repository:
# $ERRATA_NPM_CACHE, default ~/.cache/errata-npm. Idempotent: nothing is
# fetched when the pinned version is already there.
set -euo pipefail

SENTRY_NODE_VERSION=11.12.0 # works on node >= 20.19

cache="${ERRATA_NPM_CACHE:-$HOME/.cache/errata-npm}"
command -v node >/dev/null || { echo "install.sh: node is not installed" >&2; exit 1; }
command -v npm >/dev/null || { echo "install.sh: npm is not installed" >&2; exit 1; }

installed="$cache/node_modules/@sentry/node/package.json"
if [ -f "$installed" ] && node -e 'process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)' "$installed" "$SENTRY_NODE_VERSION"; then
	exit 0
fi
mkdir -p "$cache"
npm install --prefix "$cache" --no-audit --no-fund --loglevel=error "@sentry/node@$SENTRY_NODE_VERSION"
