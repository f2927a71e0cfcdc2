#!/usr/bin/env bash
# relevance.sh: the search ranking measured on judged queries, per corpus and
# backend. Serves the corpora with the bench harness, and for each corpus
# and backend crawls the corpus into fresh stores and runs `linksrus eval`
# on its judged set, printing one line of figures (MRR@10, success@1,
# success@3) each; the per-query tables are kept in OUT. `make relevance`
# runs it. Not run by CI: the corpora are not there.
#
# Environment (defaults in brackets; paths are relative to the repository):
#   HARNESS [../shared/bench]   the bench harness: run-peers.sh serves the pg
#                               corpus on :8081 and rust on :8082
#   PG_JUDGED [../shared/search/pg-judged.tsv, else testdata/relevance/pg-judged.tsv]
#   RUST_JUDGED [testdata/relevance/rust-judged.tsv]
#   CORPORA ["pg rust"]
#   BACKENDS ["embedded memory postgres"]; postgres runs when PG names a server
#   PG [$LINKSRUS_TEST_PG]      a PostgreSQL server URL, where a fresh
#                               database is created for each corpus and
#                               dropped afterwards (needs psql)
#   OUT [a new temporary directory]   per run: <corpus>-<backend>.txt (the
#                               table of places and the scores), .log (the crawl)
#   GO [go]
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
HARNESS=${HARNESS:-../shared/bench}
if [[ -z ${PG_JUDGED:-} ]]; then
  PG_JUDGED=../shared/search/pg-judged.tsv
  [[ -f $PG_JUDGED ]] || PG_JUDGED=testdata/relevance/pg-judged.tsv
fi
RUST_JUDGED=${RUST_JUDGED:-testdata/relevance/rust-judged.tsv}
CORPORA=${CORPORA:-pg rust}
BACKENDS=${BACKENDS:-embedded memory postgres}
PG=${PG:-${LINKSRUS_TEST_PG:-}}
GO=${GO:-go}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/linksrus-relevance.XXXXXX")}
mkdir -p "$OUT"

declare -A URL=([pg]=http://127.0.0.1:8081/index.html [rust]=http://127.0.0.1:8082/index.html)
declare -A JUDGED=([pg]=$PG_JUDGED [rust]=$RUST_JUDGED)

die() { echo "relevance: $*" >&2; exit 1; }

answers() { curl -s -o /dev/null -w '%{http_code}' -H 'X-Bench-Nolog: 1' "$1" 2>/dev/null | grep -q '^200$'; }

# The corpora: served already, or started with the harness.
for c in $CORPORA; do
  [[ -n ${URL[$c]:-} ]] || die "unknown corpus $c (CORPORA: pg, rust)"
  [[ -f ${JUDGED[$c]} ]] || die "no judged set for $c at ${JUDGED[$c]}"
done
command -v curl >/dev/null || die "curl is needed to check the corpora (apt-get install curl)"
for c in $CORPORA; do
  answers "${URL[$c]}" && continue
  if [[ ! -x $HARNESS/run-peers.sh ]]; then
    die "the $c corpus is not served at ${URL[$c]} and the bench harness is not at $HARNESS.
Set HARNESS=/path/to/bench (the directory of run-peers.sh; make relevance HARNESS=...).
The harness serves the corpora with nginx from Debian's postgresql-doc-15 and
rust-doc packages and installs what is missing with apt-get (as root):
  apt-get install nginx curl postgresql-doc-15 rust-doc"
  fi
  echo "relevance: starting the corpora: $HARNESS/run-peers.sh start" >&2
  "$HARNESS/run-peers.sh" start >&2 || die "$HARNESS/run-peers.sh start failed"
  answers "${URL[$c]}" || die "the $c corpus does not answer at ${URL[$c]} after $HARNESS/run-peers.sh start"
done

bin=$OUT/linksrus
$GO build -o "$bin" ./cmd/linksrus

dbs=()
tmpdirs=()
cleanup() {
  local db
  for db in "${dbs[@]}"; do
    psql -q -X "$PG" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null || echo "relevance: could not drop database $db" >&2
  done
  for d in "${tmpdirs[@]}"; do rm -rf "$d"; done
}
trap cleanup EXIT

# stores CORPUS BACKEND sets flags to the store flags of fresh, empty
# stores (in this shell, so that cleanup knows what to remove).
stores() {
  case $2 in
    embedded)
      local d
      d=$(mktemp -d "${TMPDIR:-/tmp}/linksrus-relevance-data.XXXXXX")
      tmpdirs+=("$d")
      flags=(--data "$d") ;;
    memory) flags=(--graph memory:// --index memory://) ;;
    postgres)
      local db dsn
      db=linksrus_relevance_${1}_$$_$RANDOM
      psql -q -X "$PG" -c "CREATE DATABASE $db" >/dev/null || die "could not create database $db on $PG"
      dbs+=("$db")
      # The server URL with the new database as its path.
      dsn=$(sed -E "s#^([a-z]+://[^/?]*)(/[^?]*)?#\1/$db#" <<<"$PG")
      flags=(--graph "$dsn" --index "$dsn") ;;
    *) die "unknown backend $2 (BACKENDS: embedded, memory, postgres)" ;;
  esac
}

printf 'judged sets: pg %s, rust %s; output in %s\n' "$PG_JUDGED" "$RUST_JUDGED" "$OUT"
printf '%-5s %-9s %s\n' corpus backend scores
for c in $CORPORA; do
  for b in $BACKENDS; do
    if [[ $b == postgres ]]; then
      if [[ -z $PG ]]; then
        printf '%-5s %-9s %s\n' "$c" "$b" "skipped: set PG or LINKSRUS_TEST_PG to a server URL"
        continue
      fi
      command -v psql >/dev/null || die "psql is needed to create the database (apt-get install postgresql-client)"
    fi
    stores "$c" "$b"
    start=$(date +%s.%N)
    if ! "$bin" eval "${flags[@]}" --judged "${JUDGED[$c]}" --crawl "${URL[$c]}" \
        --allow-net 127.0.0.0/8 --ignore-robots >"$OUT/$c-$b.txt" 2>"$OUT/$c-$b.log"; then
      die "$c on $b failed; see $OUT/$c-$b.log"
    fi
    secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e-s}')
    scores=$(tail -n 1 "$OUT/$c-$b.txt")
    printf '%-5s %-9s %s  (crawl and eval %ss)\n' "$c" "$b" "$scores" "$secs"
  done
done
