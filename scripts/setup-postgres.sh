#!/usr/bin/env bash
# Makes the local PostgreSQL usable by this project on a fresh machine:
#  1. starts the local cluster if it is installed but stopped;
#  2. builds and installs the pgvector extension from Debian's source package when the
#     server lacks it (bookworm ships no binary package for PostgreSQL 15, trixie's source builds fine);
#  3. creates the development and test databases.
# Idempotent: every step checks first. Needs root for step 2 (CI and dev machines run as root).
set -euo pipefail

PGHOST=${PGHOST:-127.0.0.1}
PGPORT=${PGPORT:-5432}
PGUSER=${PGUSER:-postgres}
export PGHOST PGPORT PGUSER
DATABASES=${SETUP_DATABASES:-"community_faq community_faq_test"}

log() { printf '[setup-postgres] %s\n' "$*"; }

psql_q() { psql -X -v ON_ERROR_STOP=1 -d postgres -tAc "$1"; }

if ! pg_isready -q -h "$PGHOST" -p "$PGPORT"; then
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    ver=$(ls /etc/postgresql | sort -V | tail -n 1)
    log "starting PostgreSQL $ver"
    pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
    for _ in $(seq 1 30); do pg_isready -q -h "$PGHOST" -p "$PGPORT" && break; sleep 1; done
  fi
fi
pg_isready -q -h "$PGHOST" -p "$PGPORT" || { log "PostgreSQL is not reachable at $PGHOST:$PGPORT"; exit 1; }

has_vector() { [ "$(psql_q "select count(*) from pg_available_extensions where name = 'vector'")" = "1" ]; }

if has_vector; then
  log "pgvector already available"
else
  server_major=$(psql_q "show server_version_num" | cut -c1-2)
  log "pgvector missing: building it for PostgreSQL $server_major from Debian's source package"
  export DEBIAN_FRONTEND=noninteractive
  # Derive the Debian mirror from the machine's own apt sources (deb822 or one-line format).
  mirror=$( { cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null || true; } \
           | grep -oE '(URIs:[[:space:]]*|^deb[[:space:]]+)(\[[^]]*\][[:space:]]+)?https?://[^[:space:]]+/debian/?([[:space:]]|$)' \
           | grep -oE 'https?://[^[:space:]]+/debian' | head -n 1 || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  mirror=${mirror%/}
  src_list=/etc/apt/sources.list.d/community-faq-trixie-src.list
  if [ ! -f "$src_list" ]; then
    log "adding deb-src for trixie from $mirror"
    echo "deb-src $mirror trixie main" > "$src_list"
  fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "postgresql-server-dev-$server_major" build-essential dpkg-dev >/dev/null
  work=$(mktemp -d)
  ( cd "$work" && apt-get source -qq --download-only pgvector >/dev/null && dpkg-source -x --no-check ./*.dsc src >/dev/null )
  make -s -C "$work/src" PG_CONFIG="/usr/lib/postgresql/$server_major/bin/pg_config" OPTFLAGS="" >/dev/null
  make -s -C "$work/src" PG_CONFIG="/usr/lib/postgresql/$server_major/bin/pg_config" install >/dev/null
  rm -rf "$work"
  has_vector || { log "pgvector build finished but the extension is still not available"; exit 1; }
  log "pgvector installed ($(psql_q "select default_version from pg_available_extensions where name = 'vector'"))"
fi

for db in $DATABASES; do
  if [ "$(psql_q "select count(*) from pg_database where datname = '$db'")" = "0" ]; then
    log "creating database $db"
    psql_q "create database \"$db\"" >/dev/null
  fi
done
log "ready"
