# A PostgreSQL server of the test's own, on loopback in its scratch
# directory (Debian's postgresql-15 binaries; run as the postgres account
# when the test runs as root). Skips the test (77) where none is installed.
# Sourced after lib.sh; sets pgport and dsn.
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort | tail -1)
[[ -n $pgbin && -x $pgbin/initdb ]] || { echo "SKIP: no PostgreSQL server installed"; exit 77; }
as_pg() { if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
mkdir -p "$work/pg"
chmod 711 "$work"  # the postgres account goes through it to its directory
[[ $(id -u) == 0 ]] && chown postgres "$work/pg"
as_pg "$pgbin/initdb" -D "$work/pg/data" -U synergy -A trust --no-sync >"$work/initdb.log" 2>&1 || fail "initdb"
pgport=$(free_port)
dsn="host=127.0.0.1 port=$pgport dbname=postgres user=synergy"
# pg_start / pg_stop: the server on pgport (stopped at once, as by a crash).
pg_start() {
  as_pg "$pgbin/pg_ctl" -D "$work/pg/data" -l "$work/pg/data/server.log" -w -s \
    -o "-c listen_addresses=127.0.0.1 -p $pgport -k $work/pg" start || fail "PostgreSQL did not start"
}
pg_stop() { as_pg "$pgbin/pg_ctl" -D "$work/pg/data" -m immediate -s stop 2>/dev/null; }
trap 'pg_stop; cleanup' EXIT
pg_start
