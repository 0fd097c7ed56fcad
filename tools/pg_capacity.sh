#!/usr/bin/env bash
# The PostgreSQL capacity benchmark (issue 17; figures in docs/benchmarks.md): lease claims
# and committed fetches per second of 1, 2 and 4 crawler processes writing into one
# PostgreSQL server, next to the physical limit of that server measured in the same run
# (pgbench, one-row commits).
#
#   tools/pg_capacity.sh [DATABASE_URL] [SECONDS]
#
# Each crawler process is the loopback bench (`crates/crawler/benches/loopback.rs` with
# `--db`): its own simulated web of 1000 hosts and 5000 feeds, its own schema on the server;
# the processes run at the same time and their throughputs are added. Every process, the web
# and the server share this machine's cores.
set -euo pipefail
cd "$(dirname "$0")/.."
url="${1:-${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}}"
seconds="${2:-30}"
bench="$(cargo bench -p tidings-crawler --bench loopback --no-run 2>&1 | sed -n 's/.*Executable .*(\(.*\))/\1/p' | tail -n1)"
[ -x "$bench" ] || { echo "the loopback bench did not build" >&2; exit 1; }

echo "== pgbench: one-row commits on the same server"
psql "$url" -qc "DROP TABLE IF EXISTS pg_capacity_one; CREATE TABLE pg_capacity_one (id BIGSERIAL PRIMARY KEY, v INT)"
echo "INSERT INTO pg_capacity_one (v) VALUES (1);" >/tmp/pg_capacity_one.sql
for clients in 1 8; do
  printf 'clients %s: ' "$clients"
  pgbench -n -f /tmp/pg_capacity_one.sql -c "$clients" -j 2 -T 10 "$url" 2>/dev/null | sed -n 's/^tps = \([0-9.]*\).*/\1 commits\/s/p'
done
psql "$url" -qc "DROP TABLE pg_capacity_one"

for scenario in not-modified new-entries; do
  for n in 1 2 4; do
    outs=()
    for i in $(seq 1 "$n"); do
      out="$(mktemp)"
      outs+=("$out")
      "$bench" --hosts 1000 --feeds 5000 --scenario "$scenario" --seconds "$seconds" --db "$url" --bench >"$out" 2>&1 &
    done
    wait
    total=0
    claims=0
    for out in "${outs[@]}"; do
      rate="$(sed -n 's/^throughput: \([0-9]*\) fetches.*/\1/p' "$out")"
      failed="$(sed -n 's/^outcomes: .* \([0-9]*\) failed/\1/p' "$out")"
      [ -n "$rate" ] || { cat "$out" >&2; exit 1; }
      [ "${failed:-0}" = 0 ] || echo "warning: $failed reads failed in one process" >&2
      total=$((total + rate))
      claims=$((claims + $(sed -n 's/^host leases: .*(\([0-9]*\)\/s)/\1/p' "$out")))
      rm -f "$out"
    done
    echo "$scenario, $n process(es): $total committed fetches/s, $claims lease claims/s"
  done
done
