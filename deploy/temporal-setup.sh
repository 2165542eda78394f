#!/bin/sh
# Sets up Delegate's Temporal cluster on PostgreSQL; idempotent, so every start runs it.
# Shared by `npm run cluster` (scripts/temporal-server.ts) and docker-compose.yml (in the
# temporalio/admin-tools image). Settings: deploy/temporal.env plus the launcher's
# POSTGRES_SEEDS, DB_PORT (and TEMPORAL_ADDRESS for `namespace`).
#
#   temporal-setup.sh schema      databases, then the schema at the server's version (before the server)
#   temporal-setup.sh namespace   the namespace and the search attributes (once the server answers)
set -eu
SQL_TOOL=${TEMPORAL_SQL_TOOL:-temporal-sql-tool}
CLI=${TEMPORAL_CLI:-temporal}

sql() {
  "$SQL_TOOL" --plugin postgres12 --ep "${POSTGRES_SEEDS:-127.0.0.1}" -p "${DB_PORT:-5432}" \
    -u "$POSTGRES_USER" --pw "$POSTGRES_PWD" "$@"
}

case "${1:-}" in
schema)
  for pair in "$DBNAME:temporal" "$VISIBILITY_DBNAME:visibility"; do
    db=${pair%%:*}
    schema=${pair##*:}
    # a second start finds the database: that is the only error to let through
    if ! out=$(sql --db "$db" create-database 2>&1); then
      case "$out" in
      *"already exists"*) ;;
      *) echo "$out" >&2; exit 1 ;;
      esac
    fi
    # version tables (IF NOT EXISTS), then every schema version newer than the database's
    sql --db "$db" setup-schema -v 0.0 >/dev/null 2>&1 || sql --db "$db" setup-schema -v 0.0
    sql --db "$db" update-schema --schema-name "postgresql/v12/$schema" >/dev/null 2>&1 ||
      sql --db "$db" update-schema --schema-name "postgresql/v12/$schema"
    echo "schema of $db is current"
  done
  ;;
namespace)
  ns=${DEFAULT_NAMESPACE:-default}
  if ! "$CLI" operator namespace describe --namespace "$ns" >/dev/null 2>&1; then
    "$CLI" operator namespace create --namespace "$ns" --retention "${DEFAULT_NAMESPACE_RETENTION:-24h}"
  fi
  # a new namespace reaches the frontend's cache within about 10 s
  tries=0
  until existing=$("$CLI" operator search-attribute list --namespace "$ns" 2>&1); do
    tries=$((tries + 1))
    if [ "$tries" -ge 60 ]; then echo "$existing" >&2; exit 1; fi
    sleep 1
  done
  for pair in $DELEGATE_SEARCH_ATTRIBUTES; do
    name=${pair%%:*}
    # one at a time: an upgrade adds the new ones to a namespace that has the old ones
    if ! printf '%s\n' "$existing" | grep -qw "$name"; then
      "$CLI" operator search-attribute create --namespace "$ns" --name "$name" --type "${pair##*:}"
    fi
  done
  echo "namespace $ns has Delegate's search attributes"
  ;;
*)
  echo "usage: $0 schema|namespace" >&2
  exit 2
  ;;
esac
