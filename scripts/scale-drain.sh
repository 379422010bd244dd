#!/bin/bash
# Scaling figure, processing only: one api process takes 2,000 batches
# (2 million events) spread over PROJECTS projects, then WORKERS worker
# processes start and the time until the backlog is empty is measured.
# docs/performance.md, "Scaling out".
# usage: BIN=./errata scripts/scale-drain.sh WORKERS [PROJECTS]
: "${BIN:=./errata}"; OUT=$(mktemp -d)
set -e
WORKERS=$1; PROJECTS=${2:-1}
DB=errata_drain_$$
psql -h 127.0.0.1 -U postgres -d test -qc "CREATE DATABASE $DB"
export ERRATA_DATABASE_URL="postgres://postgres@127.0.0.1:5432/$DB?sslmode=disable" ERRATA_INGEST_RATE_LIMIT=1000000 ERRATA_INGEST_RATE_BURST=1000000 ERRATA_GRPC_ADDR=off ERRATA_MAX_BACKLOG_BYTES=20GiB
$BIN migrate >/dev/null
ERRATA_ADDR=127.0.0.1:19101 ERRATA_BASE_URL=http://127.0.0.1:19101 $BIN serve --roles api >$OUT/api.log 2>&1 & API=$!
for i in $(seq 100); do curl -sf http://127.0.0.1:19101/readyz >/dev/null && break; sleep 0.2; done
U=http://127.0.0.1:19101
TOK=$(curl -s -XPOST $U/v1/auth/sign-up/email -H 'Content-Type: application/json' -d '{"email":"a@example.com","password":"correct horse battery","name":"A"}' | jq -r .token)
ORG=$(curl -s -XPOST $U/v1/orgs -H "Authorization: Bearer $TOK" -H 'Content-Type: application/json' -d '{"name":"scale"}' | jq -r .id)
LG=()
for p in $(seq $PROJECTS); do
  PRJ=$(curl -s -XPOST $U/v1/orgs/$ORG/projects -H "Authorization: Bearer $TOK" -H 'Content-Type: application/json' -d "{\"name\":\"loadgen$p\"}" | jq -r .id)
  KEY=$(curl -s -XPOST $U/v1/projects/$PRJ/keys -H "Authorization: Bearer $TOK" -H 'Content-Type: application/json' -d '{"name":"k"}' | jq -r .key)
  $BIN loadgen --url $U --key $KEY --batches $((2000/PROJECTS)) --concurrency $((8/PROJECTS)) --distinct 16 --seed $p --json > $OUT/d$p.json 2>&1 & LG+=($!)
done
for p in ${LG[@]}; do wait $p; done
backlog() { curl -s $U/metrics | awk '/^errata_ingest_backlog_events /{print $2}'; }
sleep 2; B0=$(backlog)
S=$(date +%s.%N)
PIDS=()
for i in $(seq $WORKERS); do ERRATA_ADDR=127.0.0.1:1920$i $BIN serve --roles worker >$OUT/worker$i.log 2>&1 & PIDS+=($!); done
while true; do b=$(backlog); [ "$b" = "0" ] && break; sleep 0.5; done
E=$(date +%s.%N)
python3 -c "print('workers=$WORKERS projects=$PROJECTS events=%d drain=%.1fs %.0f events/s' % ($B0, $E-$S, $B0/($E-$S)))"
kill $API ${PIDS[@]}; wait 2>/dev/null
psql -h 127.0.0.1 -U postgres -d test -qc "DROP DATABASE $DB WITH (FORCE)"
