#!/bin/bash
# Issue 28's comparison in one run: the busy-senders preset against
# VictoriaLogs and against Errata with every role (scripts/whole-server.sh,
# SQLite, the count check), ROUNDS times each, alternated, each on a fresh
# data directory; then the median accepted events/s of each and their ratio.
# VL is a victoria-logs binary you built yourself (nothing of it is in this
# repository; docs/performance.md, "Side by side"); it gets the same events
# as JSON lines on /insert/jsonline, and its stored count is read back after
# a flush so that an event it dropped shows.
# usage: VL=/path/to/victoria-logs BIN=./errata [OUT=dir] [VLPORT=19428] scripts/side-by-side.sh [DURATION] [ROUNDS]
: "${BIN:=./errata}"; : "${VL:?VL must name a victoria-logs binary}"
set -e
DUR=${1:-20s}; ROUNDS=${2:-2}
OUT=${OUT:-$(mktemp -d)}; VLPORT=${VLPORT:-19428}; V=http://127.0.0.1:$VLPORT
HERE=$(cd "$(dirname "$0")" && pwd)
rate() { awk '$1=="accepted_events_per_s"{print $2}' "$1"; }
victoria() { # $1: this round's directory
  mkdir -p $1/data
  $VL -storageDataPath=$1/data -httpListenAddr=127.0.0.1:$VLPORT -loggerLevel=ERROR >$1/vl.log 2>&1 & VLP=$!
  until curl -fs $V/health >/dev/null; do sleep 0.2; done
  $BIN loadgen --target jsonl --preset busy-senders --duration $DUR \
    --url "$V/insert/jsonline?_msg_field=message&_time_field=timestamp&_stream_fields=service,level" >$1/report.txt 2>$1/loadgen.err
  curl -fs $V/internal/force_flush >/dev/null; sleep 1
  local stored accepted
  stored=$(curl -fs $V/select/logsql/query --data-urlencode 'query=* | stats count() n' | jq -r .n)
  accepted=$(awk '$1=="events_accepted"{print $2}' $1/report.txt)
  echo "victorialogs_stored      $stored of $accepted accepted" >>$1/report.txt
  echo "peak RSS: $(grep VmHWM /proc/$VLP/status)" >>$1/report.txt
  kill $VLP; wait $VLP 2>/dev/null || true
}
for r in $(seq 1 $ROUNDS); do
  echo "== round $r: VictoriaLogs ($(uptime | sed 's/.*load/load/'))"
  victoria $OUT/vl$r
  grep -E 'accepted_events_per_s|latency_p50|victorialogs_stored|peak RSS' $OUT/vl$r/report.txt
  echo "== round $r: Errata ($(uptime | sed 's/.*load/load/'))"
  OUT=$OUT/errata$r BIN=$BIN "$HERE/whole-server.sh" $DUR >$OUT/errata$r.txt 2>&1
  grep -E 'accepted_events_per_s|latency_p50|end_to_end_events_per_s|counted_events|peak RSS' $OUT/errata$r.txt
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
E=$(for r in $(seq 1 $ROUNDS); do rate $OUT/errata$r.txt; done | median)
L=$(for r in $(seq 1 $ROUNDS); do rate $OUT/vl$r/report.txt; done | median)
awk -v e=$E -v l=$L 'BEGIN {printf "median accepted events/s: errata %.0f, victorialogs %.0f, ratio %.2f\n", e, l, e/l}'
