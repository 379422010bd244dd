#!/bin/bash
# One hostile attack against a fresh server on the embedded SQLite default:
# starts BIN serve in a temporary data directory, signs up, creates an
# organization, a project and a key, runs `BIN loadgen --attack …` with the
# arguments given (plus --key), prints its report and stops the server.
# docs/performance.md, "Hostile load".
# usage: BIN=./errata scripts/hostile.sh --attack grpc-bomb
# SERVER_BIN (default BIN) is the server to attack: an older build, to
# measure an attack before a change with the newer loadgen.
: "${BIN:=./errata}"; : "${SERVER_BIN:=$BIN}"; D=$(mktemp -d)
set -e
U=http://127.0.0.1:19750
ERRATA_DATA_DIR=$D/data ERRATA_ADDR=127.0.0.1:19750 ERRATA_GRPC_ADDR=127.0.0.1:19751 ERRATA_BASE_URL=$U \
  $SERVER_BIN serve >$D/server.log 2>&1 &
SP=$!
trap 'kill $SP 2>/dev/null; wait $SP 2>/dev/null; rm -rf $D' EXIT
for _ in $(seq 100); do curl -sf $U/readyz >/dev/null && break; sleep 0.2; done
J='Content-Type: application/json'
TOK=$(curl -s $U/v1/auth/sign-up/email -H "$J" -d '{"email":"a@example.com","password":"correct horse battery","name":"A"}' | jq -er .token)
A="Authorization: Bearer $TOK"
ORG=$(curl -s $U/v1/orgs -H "$A" -H "$J" -d '{"name":"hostile"}' | jq -er .id)
PRJ=$(curl -s $U/v1/orgs/$ORG/projects -H "$A" -H "$J" -d '{"name":"p"}' | jq -er .id)
KEY=$(curl -s $U/v1/projects/$PRJ/keys -H "$A" -H "$J" -d '{"name":"k"}' | jq -er .key)
$BIN loadgen --url $U --grpc-addr 127.0.0.1:19751 --server-pid $SP --key "$KEY" "$@"
