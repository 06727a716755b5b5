#!/bin/sh
# The official image's first-start behaviour, for the settings deploy/compose.yaml uses.
set -eu
bin=/usr/lib/postgresql/15/bin
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
user="${POSTGRES_USER:-postgres}"

# /run is a fresh tmpfs in a container: the socket's directory is made on each start.
install -d -o postgres -g postgres -m 2775 /var/run/postgresql
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  install -d -o postgres -g postgres -m 700 "$PGDATA"
  password_file="$(mktemp)"
  printf '%s\n' "${POSTGRES_PASSWORD:?the stand-in needs POSTGRES_PASSWORD}" > "$password_file"
  chown postgres "$password_file"
  as_postgres "$bin/initdb" --pgdata="$PGDATA" --username="$user" --pwfile="$password_file" \
    --auth-local=trust --auth-host=scram-sha-256 > /dev/null
  rm -f "$password_file"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ "${POSTGRES_DB:-$user}" != postgres ]; then
    as_postgres "$bin/pg_ctl" --pgdata="$PGDATA" --options="-c listen_addresses=''" --wait start > /dev/null
    as_postgres "$bin/createdb" --username="$user" "${POSTGRES_DB:-$user}"
    as_postgres "$bin/pg_ctl" --pgdata="$PGDATA" --mode=fast --wait stop > /dev/null
  fi
fi
if [ "${1:-}" = postgres ]; then
  shift
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$bin/postgres" -c listen_addresses='*' "$@"
fi
exec "$@"
