#!/bin/bash
# Issue 28's whole-server run: one `errata serve` with every role on SQLite
# (a fresh data directory), a user, organization, project named loadgen and
# its key made through the API, then the busy-senders preset for DURATION
# with the count check. With PERF=1 it records a CPU profile of the server
# 8 s into the run for 10 s (perf.data in OUT). LOADARGS replaces
# "--preset busy-senders" (e.g. "--target sentry --concurrency 32 --distinct 64").
# With PG=postgres://user@host:port the server runs on a new PostgreSQL
# database there, dropped at the end. With BACKLOG=1 the server runs the api
# role only while the load is sent, so that everything accepted waits in the
# queue; it is then restarted with every role and the drain is timed
# (backlog_drain_s, backlog_events_per_s; no count check).
# usage: BIN=./errata [OUT=dir] [PORT=18280] [PERF=1] scripts/whole-server.sh [DURATION] [extra loadgen flags…]
: "${BIN:=./errata}"
set -e
DUR=${1:-20s}; shift || true
OUT=${OUT:-$(mktemp -d)}; DATA=$OUT/data; mkdir -p $DATA
PORT=${PORT:-18280}; B=http://127.0.0.1:$PORT
DBURL=
if [ -n "$PG" ]; then
  DBNAME=errata_ws_$$; psql "$PG/postgres" -qc "CREATE DATABASE $DBNAME" >/dev/null
  DBURL="$PG/$DBNAME?sslmode=disable"
fi
start() {
ERRATA_ROLES=${1:-api,worker,scheduler} ERRATA_DATABASE_URL=$DBURL ERRATA_DATA_DIR=$DATA ERRATA_ADDR=127.0.0.1:$PORT ERRATA_BASE_URL=$B ERRATA_GRPC_ADDR=off \
  ERRATA_INGEST_RATE_LIMIT=1000000 ERRATA_INGEST_RATE_BURST=1000000 \
  ERRATA_SENTRY_RATE_LIMIT=1000000 ERRATA_SENTRY_RATE_BURST=1000000 \
  $BIN serve >>$OUT/serve.log 2>&1 & SRV=$!
}
start ${BACKLOG:+api}
trap 'kill $SRV 2>/dev/null; wait $SRV 2>/dev/null; [ -z "$PG" ] || psql "$PG/postgres" -qc "DROP DATABASE $DBNAME" >/dev/null' EXIT
until curl -fs $B/readyz >/dev/null; do sleep 0.2; done
J='Content-Type: application/json'
TOK=$(curl -s $B/v1/auth/sign-up/email -H "$J" -d '{"email":"a@example.com","password":"correct horse battery","name":"A"}' | jq -er .token)
A="Authorization: Bearer $TOK"
ORG=$(curl -s $B/v1/orgs -H "$A" -H "$J" -d '{"name":"load"}' | jq -er .id)
PRJ=$(curl -s $B/v1/orgs/$ORG/projects -H "$A" -H "$J" -d '{"name":"loadgen"}' | jq -er .id)
curl -s $B/v1/projects/$PRJ/keys -H "$A" -H "$J" -d '{"name":"k"}' >$OUT/key.json
PERFJOB=
if [ -n "$PERF" ]; then (sleep 8; perf record -F 499 -g -p $SRV -o $OUT/perf.data -- sleep 10 >/dev/null 2>&1) & PERFJOB=$!; fi
CHECK=(--token="$TOK" --project $PRJ --drain-timeout 10m); [ -z "$BACKLOG" ] || CHECK=()
$BIN loadgen --url $B --key "$(jq -r .key $OUT/key.json)" --dsn "$(jq -r .dsn $OUT/key.json)" ${LOADARGS:---preset busy-senders} \
  --duration $DUR "${CHECK[@]}" "$@" | tee $OUT/report.txt
if [ -n "$BACKLOG" ]; then
  kill $SRV; wait $SRV 2>/dev/null || true
  T0=$(date +%s.%N); start
  until curl -fs $B/readyz >/dev/null; do sleep 0.05; done
  until [ "$(curl -s $B/metrics | awk '$1=="errata_ingest_backlog_events"{print $2}')" = 0 ]; do sleep 0.1; done
  T1=$(date +%s.%N)
  awk -v t0=$T0 -v t1=$T1 -v n="$(awk '$1=="events_accepted"{print $2}' $OUT/report.txt)" \
    'BEGIN{printf "backlog_drain_s          %.2f\nbacklog_events_per_s     %.1f\n", t1-t0, n/(t1-t0)}' | tee -a $OUT/report.txt
fi
echo "peak RSS: $(grep VmHWM /proc/$SRV/status)"
[ -z "$PERFJOB" ] || wait $PERFJOB
