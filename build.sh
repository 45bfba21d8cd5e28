#!/usr/bin/env bash
# The one entry point. Usage: ./build.sh start | test | bundle | bench [name] | typecheck | lint
#   start   install npm dependencies if needed, compile, run the service on :8080 with data in ./data
#   test    install what the tests need (npm and Debian packages), type check, lint, run every test
#   bundle  build the release tree the appliance runs: release/netprobe-<version>/
#   bench   run the benchmarks under bench/ (they print figures; they never fail on time)
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)

# Debian packages the tests drive as real peers (installed only when missing).
TEST_DEBS=(procps iproute2 fping dnsmasq-base openssl snmpd snmp)

log() { printf '\033[1m==> %s\033[0m\n' "$*"; }

need_node() {
  command -v node >/dev/null || { echo "Node.js 20 or newer is required (apt-get install nodejs npm)"; exit 1; }
  local major; major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 20 ] || { echo "Node.js 20 or newer is required, found $(node -v)"; exit 1; }
}

# npm ci when node_modules is missing or older than the lock file.
npm_deps() {
  need_node
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    log "installing npm dependencies"
    npm ci --no-audit --no-fund --loglevel=error
  fi
}

debs() {
  local missing=()
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing Debian packages: ${missing[*]}"
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

compile() {
  log "compiling"
  rm -rf dist
  npx tsc -p tsconfig.build.json
  # Data files the compiled code reads beside itself (tsc copies only what it compiles).
  (cd src && find . -name '*.json' -path '*/oids/*' -exec install -D -m 0644 {} ../dist/src/{} \;)
}

cmd_start() {
  npm_deps
  compile
  export NETPROBE_DATA_DIR=${NETPROBE_DATA_DIR:-$ROOT/data}
  log "starting netprobe on port ${NETPROBE_PORT:-8080}, data in $NETPROBE_DATA_DIR"
  exec node dist/src/main.js
}

cmd_typecheck() { npm_deps; log "type check"; npx tsc -p tsconfig.json --noEmit; }
cmd_lint() { npm_deps; log "lint"; npx eslint . --max-warnings=0; }

cmd_test() {
  debs "${TEST_DEBS[@]}"
  npm_deps
  cmd_typecheck
  cmd_lint
  log "tests"
  mapfile -t files < <(find test -name '*.test.ts' -not -path '*/node_modules/*' | sort)
  node --import tsx --test --test-concurrency=2 "${files[@]}"
}

cmd_bundle() {
  npm_deps
  compile
  local version; version=$(node -p 'require("./package.json").version')
  local out="release/netprobe-$version"
  log "bundling $out"
  rm -rf "$out"; mkdir -p "$out"
  cp -r dist "$out/dist"
  cp -r ui "$out/ui"
  cp package.json package-lock.json "$out/"
  (cd "$out" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
  # sql.js ships asm.js, debug, browser and worker builds and zips (30 MB); the service loads only these two.
  find "$out/node_modules/sql.js/dist" -type f ! -name sql-wasm.js ! -name sql-wasm.wasm -delete
  rm -rf "$out/dist/test" "$out/dist/bench"
  # One bundle for amd64 and arm64: refuse native modules.
  if find "$out/node_modules" -name '*.node' | grep -q .; then echo "native module in bundle:"; find "$out/node_modules" -name '*.node'; exit 1; fi
  echo "$out"
}

cmd_bench() {
  npm_deps
  local name=${1:-}
  if [ -n "$name" ]; then node --import tsx "bench/$name.ts"; return; fi
  for f in bench/*.ts; do log "$f"; node --import tsx "$f"; done
}

case "${1:-}" in
  start) cmd_start ;;
  test) cmd_test ;;
  bundle) cmd_bundle ;;
  bench) shift; cmd_bench "$@" ;;
  typecheck) cmd_typecheck ;;
  lint) cmd_lint ;;
  *) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
