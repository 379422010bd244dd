#!/bin/bash
# Mixed load on one `errata serve` (every role, SQLite), as issue 30 ran it
# (docs/performance.md, "Mixed load"): REST senders of 1,000-event batches
# into one project and Sentry senders into another, a webhook channel on
# each (to `errata receive`), and dashboard readers of both projects, for
# DURATION; each generator then drains and runs its count check. Prints each
# generator's text report and the server's slow-write warnings.
# usage: BIN=./errata [OUT=dir] [PORT=18180] scripts/mixed-load.sh [DURATION] [REST_RATE] [SENTRY_RATE]
: "${BIN:=./errata}"; : "${LOADGEN:=$BIN}"   # LOADGEN: an errata with loadgen --readers, for an older server
set -e
DUR=${1:-150s}; REST_RATE=${2:-50}; SENTRY_RATE=${3:-1000}
OUT=${OUT:-$(mktemp -d)}; DATA=$OUT/data; mkdir -p $DATA
PORT=${PORT:-18180}; RPORT=$((PORT + 1)); B=http://127.0.0.1:$PORT
$BIN receive --addr 127.0.0.1:$RPORT --ca-file $OUT/ca.pem >$OUT/receive.log 2>&1 & RCV=$!
sleep 1
SSL_CERT_FILE=$OUT/ca.pem ERRATA_WEBHOOK_ALLOW_PRIVATE=true ERRATA_DATA_DIR=$DATA ERRATA_ADDR=127.0.0.1:$PORT ERRATA_BASE_URL=$B \
  ERRATA_GRPC_ADDR=off ERRATA_INGEST_RATE_LIMIT=1000000 ERRATA_INGEST_RATE_BURST=1000000 \
  ERRATA_SENTRY_RATE_LIMIT=1000000 ERRATA_SENTRY_RATE_BURST=1000000 ERRATA_API_RATE_LIMIT=10000 ERRATA_API_RATE_BURST=10000 \
  $BIN serve >$OUT/serve.log 2>&1 & SRV=$!
trap 'kill $SRV $RCV 2>/dev/null; wait 2>/dev/null' EXIT
until curl -fs $B/readyz >/dev/null; do sleep 0.2; done
J='Content-Type: application/json'
TOK=$(curl -s $B/v1/auth/sign-up/email -H "$J" -d '{"email":"a@example.com","password":"correct horse battery","name":"A"}' | jq -er .token)
A="Authorization: Bearer $TOK"
ORG=$(curl -s $B/v1/orgs -H "$A" -H "$J" -d '{"name":"mixed"}' | jq -er .id)
MEM=$(curl -s $B/v1/orgs/$ORG/members -H "$A" | jq -er '.data[0].id')
for p in rest sentry; do
  PRJ=$(curl -s $B/v1/orgs/$ORG/projects -H "$A" -H "$J" -d "{\"name\":\"$p\"}" | jq -er .id)
  curl -s $B/v1/projects/$PRJ/keys -H "$A" -H "$J" -d '{"name":"k"}' >$OUT/$p.key
  curl -s $B/v1/projects/$PRJ/channels -H "$A" -H "$J" -d "{\"member_id\":\"$MEM\",\"type\":\"webhook\",\"name\":\"hook\",\"url\":\"https://127.0.0.1:$RPORT/hook\"}" | jq -e .id >/dev/null
  echo $PRJ >$OUT/$p.prj
done
START=$(date +%s.%N)
$LOADGEN loadgen --url $B --key "$(jq -r .key $OUT/rest.key)" --concurrency 4 --batch-size 1000 --distinct 16 --rate $REST_RATE \
  --duration $DUR --token="$TOK" --project $(cat $OUT/rest.prj) --readers 1 --drain-timeout 10m >$OUT/rest.txt 2>$OUT/rest.err & L1=$!
$LOADGEN loadgen --target sentry --dsn "$(jq -r .dsn $OUT/sentry.key)" --concurrency 16 --distinct 64 --rate $SENTRY_RATE \
  --duration $DUR --token="$TOK" --project $(cat $OUT/sentry.prj) --readers 1 --drain-timeout 10m >$OUT/sentry.txt 2>$OUT/sentry.err & L2=$!
RC=0
wait $L1 || RC=$?; wait $L2 || RC=$?
echo "== rest ($OUT)"; cat $OUT/rest.txt; cat $OUT/rest.err | grep -v "loadgen writes real" || true
echo "== sentry"; cat $OUT/sentry.txt; cat $OUT/sentry.err | grep -v "loadgen writes real" || true
echo "== slow writes (started $START)"; grep -c "held the database writer" $OUT/serve.log || true
grep "held the database writer" $OUT/serve.log | sed -E 's/.*caller=([^ ]+).*held_ms=([0-9.]+).*/\1 \2/' | sort | awk '{n[$1]++; if ($2>m[$1]) m[$1]=$2} END {for (k in n) print k, n[k], "max", m[k] "ms"}'
exit $RC
