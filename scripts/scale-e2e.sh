#!/bin/bash
# Scaling figure, end to end: APIS api processes and WORKERS worker processes
# (and one scheduler) on a fresh PostgreSQL database; one load generator per
# api process sends for DURATION, then waits for the backlog to drain.
# Prints accepted events, ingest events/s and end-to-end events/s
# (accepted / (sending + draining)). docs/performance.md, "Scaling out".
# usage: BIN=./errata scripts/scale-e2e.sh APIS WORKERS [DURATION]
: "${BIN:=./errata}"; OUT=$(mktemp -d)
set -e
APIS=$1; WORKERS=$2; DUR=${3:-30s}
DB=errata_scale_$$
psql -h 127.0.0.1 -U postgres -d test -qc "CREATE DATABASE $DB" 
URL="postgres://postgres@127.0.0.1:5432/$DB?sslmode=disable"
export ERRATA_DATABASE_URL=$URL ERRATA_INGEST_RATE_LIMIT=1000000 ERRATA_INGEST_RATE_BURST=1000000 ERRATA_API_RATE_LIMIT=10000 ERRATA_API_RATE_BURST=10000 ERRATA_GRPC_ADDR=off
$BIN migrate >/dev/null
PIDS=()
for i in $(seq $APIS); do ERRATA_ADDR=127.0.0.1:1910$i ERRATA_BASE_URL=http://127.0.0.1:1910$i $BIN serve --roles api >$OUT/api$i.log 2>&1 & PIDS+=($!); done
for i in $(seq $WORKERS); do ERRATA_ADDR=127.0.0.1:1920$i $BIN serve --roles worker >$OUT/worker$i.log 2>&1 & PIDS+=($!); done
ERRATA_ADDR=127.0.0.1:19300 $BIN serve --roles scheduler >$OUT/sched.log 2>&1 & PIDS+=($!)
for i in $(seq 100); do curl -sf http://127.0.0.1:19101/readyz >/dev/null && break; sleep 0.2; done
U=http://127.0.0.1:19101
TOK=$(curl -s -XPOST $U/v1/auth/sign-up/email -H 'Content-Type: application/json' -d '{"email":"a@example.com","password":"correct horse battery","name":"A"}' | jq -r .token)
ORG=$(curl -s -XPOST $U/v1/orgs -H "Authorization: Bearer $TOK" -H 'Content-Type: application/json' -d '{"name":"scale"}' | jq -r .id)
PRJ=$(curl -s -XPOST $U/v1/orgs/$ORG/projects -H "Authorization: Bearer $TOK" -H 'Content-Type: application/json' -d '{"name":"loadgen"}' | jq -r .id)
KEY=$(curl -s -XPOST $U/v1/projects/$PRJ/keys -H "Authorization: Bearer $TOK" -H 'Content-Type: application/json' -d '{"name":"k"}' | jq -r .key)
LG=()
for i in $(seq $APIS); do
  $BIN loadgen --url http://127.0.0.1:1910$i --key $KEY --duration $DUR --concurrency $((8/APIS)) --distinct 16 --wait-drain --drain-timeout 10m --json > $OUT/lg$i.json 2>$OUT/lg$i.err & LG+=($!)
done
for p in ${LG[@]}; do wait $p; done
python3 -c "import json,sys;r=[json.load(open(\"$OUT/lg%d.json\"%i)) for i in range(1,$APIS+1)];acc=sum(x[\"events_accepted\"] for x in r);t=max(x[\"elapsed_seconds\"] for x in r);d=max(x[\"elapsed_seconds\"]+x[\"drain\"][\"seconds\"] for x in r);print(\"apis=$APIS workers=$WORKERS accepted=%d ingest=%.0f/s e2e=%.0f/s p50=%s\"%(acc,acc/t,acc/d,[x[\"latency_ms\"][\"p50\"] for x in r]))"
kill ${PIDS[@]}; wait 2>/dev/null
psql -h 127.0.0.1 -U postgres -d test -qc "DROP DATABASE $DB WITH (FORCE)"
