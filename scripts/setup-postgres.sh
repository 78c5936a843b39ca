#!/usr/bin/env bash
# Makes the local PostgreSQL usable by this project on a fresh machine:
#  1. starts the local cluster if it is installed but stopped;
#  2. builds and installs the pgvector extension from Debian's source package when the
#     server lacks it (bookworm ships no binary package for PostgreSQL 15, trixie's source builds fine);
#  3. applies the server settings docker-compose.yml ships for the database (memory for the HNSW and
#     GIN indexes, planner costs for RAM-resident data, no JIT for short OLTP queries); a restart only
#     when shared_buffers changes. SETUP_TUNE=0 leaves the server's settings alone;
#  4. reserves huge pages for the shared buffers when the kernel allows it (root, writable
#     vm.nr_hugepages) and restarts the server once to map them: an HNSW search touches thousands of
#     random 8 kB pages, and with 4 kB pages each touch risked a TLB miss (vector sub-queries took
#     20 % longer; bench/search). SETUP_HUGE_PAGES=0 skips it;
#  5. creates the development and test databases.
# Idempotent: every step checks first. Needs root for step 2 (CI and dev machines run as root).
set -euo pipefail

PGHOST=${PGHOST:-127.0.0.1}
PGPORT=${PGPORT:-5432}
PGUSER=${PGUSER:-postgres}
export PGHOST PGPORT PGUSER
DATABASES=${SETUP_DATABASES:-"community_faq community_faq_test"}

log() { printf '[setup-postgres] %s\n' "$*"; }

psql_q() { psql -X -v ON_ERROR_STOP=1 -d postgres -tAc "$1"; }

# Starts or restarts the local Debian cluster (newest installed version) and waits until it answers.
# $1: start | restart; $2: why (for the log). Without a local cluster it only says what to do.
cluster() {
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    local ver
    ver=$(ls /etc/postgresql | sort -V | tail -n 1)
    log "${1}ing PostgreSQL $ver${2:+ for $2}"
    pg_ctlcluster --skip-systemctl-redirect "$ver" main "$1" || [ "$1" = start ]
    for _ in $(seq 1 30); do pg_isready -q -h "$PGHOST" -p "$PGPORT" && break; sleep 1; done
  elif [ "$1" = restart ]; then
    log "$2 takes effect at the server's next restart"
  fi
}

if ! pg_isready -q -h "$PGHOST" -p "$PGPORT"; then cluster start; fi
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
  # Built on the machine that runs it, so tuned for this CPU (AVX-512 distance loops where it has them:
  # about 0.5 ms per vector sub-query at 100k rows). PGVECTOR_PORTABLE=1 builds for any x86-64.
  optflags="-march=native"
  [ "${PGVECTOR_PORTABLE:-0}" = "1" ] && optflags=""
  make -s -C "$work/src" PG_CONFIG="/usr/lib/postgresql/$server_major/bin/pg_config" OPTFLAGS="$optflags" >/dev/null
  make -s -C "$work/src" PG_CONFIG="/usr/lib/postgresql/$server_major/bin/pg_config" install >/dev/null
  rm -rf "$work"
  has_vector || { log "pgvector build finished but the extension is still not available"; exit 1; }
  log "pgvector installed ($(psql_q "select default_version from pg_available_extensions where name = 'vector'"))"
fi

# Keep in step with the db service's command in docker-compose.yml. shared_buffers: a quarter of the
# machine's memory (PostgreSQL's usual starting point for a dedicated server), at least 2 GB; the hot
# set of a search is both HNSW indexes with the heaps and GIN indexes, about 1.1 GB at 100,000 +
# 100,000 rows and 3.4 GB at 300,000 + 300,000, where 2 GB left a sixth of the posts graph's page reads
# to the kernel's cache and 6 GB (a quarter of 24 GB) took the realistic fused p50 from 20.7-22.2 to
# 17.4-19.1 ms (bench/search). SETUP_SHARED_BUFFERS overrides it (e.g. 4GB).
mem_mb=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo 2>/dev/null || echo 0) / 1024 ))
shared_buffers=${SETUP_SHARED_BUFFERS:-$(( mem_mb / 4 > 2048 ? mem_mb / 4 : 2048 ))MB}
TUNING="shared_buffers=$shared_buffers effective_cache_size=6GB work_mem=16MB maintenance_work_mem=1GB random_page_cost=1.1 jit=off"
if [ "${SETUP_TUNE:-1}" != "0" ]; then
  restart=0
  for kv in $TUNING; do
    name=${kv%%=*}
    want=${kv#*=}
    have=$(psql_q "select current_setting('$name')")
    if [[ $want =~ ^[0-9]+(kB|MB|GB)$ ]]; then
      same=$(psql_q "select pg_size_bytes('$have') = pg_size_bytes('$want')")
    else
      same=$([ "$have" = "$want" ] && echo t || echo f)
    fi
    if [ "$same" != "t" ]; then
      log "setting $name = $want (was $have)"
      psql_q "alter system set $name = '$want'" >/dev/null
      [ "$name" = "shared_buffers" ] && restart=1
    fi
  done
  psql_q "select pg_reload_conf()" >/dev/null
  if [ "$restart" = "1" ]; then cluster restart "shared_buffers"; fi
fi

# Huge pages for the shared buffers (after any restart above, so the size is for the final settings).
if [ "${SETUP_HUGE_PAGES:-1}" != "0" ] && [ -w /proc/sys/vm/nr_hugepages ]; then
  need=$(psql_q "show shared_memory_size_in_huge_pages")
  have=$(cat /proc/sys/vm/nr_hugepages)
  if [ "$need" -gt 0 ] && [ "$have" -lt "$need" ]; then
    log "reserving $need huge pages for the shared buffers (had $have)"
    echo "$need" > /proc/sys/vm/nr_hugepages 2>/dev/null || true
    got=$(cat /proc/sys/vm/nr_hugepages)
    if [ "$got" -lt "$need" ]; then
      # Too fragmented for the whole reservation: huge_pages=try would not use a partial one, so give it back.
      log "only $got huge pages available; leaving the server on normal pages"
      echo "$have" > /proc/sys/vm/nr_hugepages 2>/dev/null || true
    fi
  fi
  # Mapped or reserved huge pages: 0 means the running server started without them.
  in_use=$(awk '/HugePages_Total/ {t=$2} /HugePages_Free/ {f=$2} /HugePages_Rsvd/ {r=$2} END {print t - f + r}' /proc/meminfo)
  if [ "$need" -gt 0 ] && [ "$(cat /proc/sys/vm/nr_hugepages)" -ge "$need" ] && [ "$in_use" = "0" ]; then
    cluster restart "huge pages"
  fi
fi

for db in $DATABASES; do
  if [ "$(psql_q "select count(*) from pg_database where datname = '$db'")" = "0" ]; then
    log "creating database $db"
    psql_q "create database \"$db\"" >/dev/null
  fi
done
log "ready"
