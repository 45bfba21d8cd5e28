#!/usr/bin/env bash
# The one entry point. Usage: ./build.sh start | test | test-image | bundle | publish URL CHANNEL | image | bench [name] | typecheck | lint
#   start       install npm dependencies if needed, compile, run the service on :8080 with data in ./data
#   test        install what the tests need (npm and Debian packages), type check, lint, run every test
#   test-image  the appliance image test: install the release into a Debian 13 arm64 root under qemu (root)
#   bundle      build the release tree the appliance runs: release/netprobe-<version>/
#   publish     bundle, commit the tree to branch CHANNEL of the git remote URL and push it with an SSH-signed
#               tag v<version> (key: $NETPROBE_RELEASE_SIGNING_KEY): what probes on that channel update to
#   image       build the Raspberry Pi OS image with pi-gen (root; says what is missing where it cannot);
#               $NETPROBE_RELEASE_KEY names the public key self-update pins (without it, updates are refused)
#   bench       run the benchmarks under bench/ (they print figures; they never fail on time)
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)

# Debian packages the tests drive as real peers (installed only when missing).
TEST_DEBS=(procps iproute2 fping mtr-tiny nftables dnsmasq-base openssl snmpd snmp lldpd openssh-server openssh-client systemd systemd-container chromium fonts-dejavu-core ieee-data nmap prometheus pebble mosquitto git gnupg bind9 bind9-dnsutils)
# What the image test needs besides those: a Debian root file system for arm64 and a way to run it.
IMAGE_TEST_DEBS=(debootstrap qemu-user-static binfmt-support libcap2-bin)

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
  # The tests start their own lldpd and sshd inside the lab's namespaces. Installing the packages may also
  # start system-wide ones: a system lldpd would announce this machine on its real network (and the tests run
  # their own mosquitto and named). Stop those we
  # just installed (an sshd that was already there is left alone).
  if [ -d /run/systemd/system ]; then
    for unit in lldpd ssh mosquitto named; do
      local pkg=${unit/ssh/openssh-server}; pkg=${pkg/named/bind9}
      case " ${missing[*]} " in *" $pkg "*) $sudo systemctl disable --now "$unit" >/dev/null 2>&1 || true ;; esac
    done
  fi
}

compile() {
  # The web UI's third-party modules into ui/vendor/ and its import map (scripts/ui-vendor.mjs).
  node scripts/ui-vendor.mjs
  log "compiling"
  rm -rf dist
  npx tsc -p tsconfig.build.json
  # The data files the code reads beside itself, and dist/src/main.js as one module (start-up: scripts/bundle.mjs).
  node scripts/bundle.mjs
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
  # The appliance tests (test/appliance/) install this release into a root file system and boot it.
  cmd_bundle
  export NETPROBE_RELEASE=$ROOT/$BUNDLE_DIR
  log "tests"
  mapfile -t files < <(find test -name '*.test.ts' -not -path '*/node_modules/*' -not -path 'test/image/*' | sort)
  # --test-force-exit: a test file whose test failed before it closed its service (a server, a timer) would
  # otherwise keep its process, and the whole run, waiting for ever; its failure is reported either way.
  node --import tsx --test --test-concurrency=2 --test-force-exit "${files[@]}"
}

# Lets this machine run arm64 programs: natively, or through qemu-user-static registered with binfmt_misc.
arm64_exec() {
  [ "$(uname -m)" = aarch64 ] && return 0
  local f=/proc/sys/fs/binfmt_misc
  if [ ! -e $f/status ] && ! mount -t binfmt_misc binfmt_misc $f; then
    echo "binfmt_misc cannot be mounted here (a container without the privilege?); arm64 programs cannot run"; exit 1
  fi
  if ! grep -qs '^enabled' $f/qemu-aarch64; then
    update-binfmts --enable qemu-aarch64 || { echo "could not register qemu-aarch64 with binfmt_misc"; exit 1; }
  fi
}

cmd_test_image() {
  [ "$(id -u)" -eq 0 ] || { echo "the image test mounts and chroots: run it as root"; exit 1; }
  debs "${IMAGE_TEST_DEBS[@]}"
  arm64_exec
  npm_deps
  cmd_bundle
  export NETPROBE_RELEASE=$ROOT/$BUNDLE_DIR
  log "image test (cache: ${NETPROBE_IMAGE_CACHE:-/var/cache/netprobe-test-image})"
  node --import tsx --test test/image/*.test.ts
}

# pi-gen (arm64 branch) builds Raspberry Pi OS Lite and then image/stage-netprobe, which runs install.sh.
cmd_image() {
  local pigen=${PIGEN_DIR:-$ROOT/../pi-gen} missing=() tool pkg
  [ "$(id -u)" -eq 0 ] || missing+=("root: run sudo ./build.sh image")
  if [ ! -f "$pigen/build.sh" ]; then
    missing+=("pi-gen in $pigen: git clone --branch arm64 https://github.com/RPi-Distro/pi-gen.git $pigen (or set PIGEN_DIR)")
  elif ! grep -q '^export ARCH=arm64' "$pigen/build.sh"; then
    missing+=("pi-gen's arm64 branch: git -C $pigen checkout arm64")
  fi
  if [ -f "$pigen/depends" ]; then
    while IFS=: read -r tool pkg; do
      if [ -n "$tool" ] && ! command -v "$tool" >/dev/null; then missing+=("$tool: apt-get install ${pkg:-$tool}"); fi
    done < "$pigen/depends"
  fi
  if [ "$(uname -m)" != aarch64 ] && ! grep -qs '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64; then
    missing+=("arm64 emulation: apt-get install qemu-user-static binfmt-support (binfmt_misc must be available)")
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    echo "./build.sh image cannot build here. Missing:"
    printf '  - %s\n' "${missing[@]}"
    echo "pi-gen also needs to reach Raspberry Pi's and Debian's package archives."
    exit 1
  fi
  npm_deps
  cmd_bundle
  export NETPROBE_RELEASE=$ROOT/$BUNDLE_DIR NETPROBE_STAGE=$ROOT/image/stage-netprobe
  if [ -n "${NETPROBE_RELEASE_KEY:-}" ]; then export NETPROBE_RELEASE_KEY; NETPROBE_RELEASE_KEY=$(realpath "$NETPROBE_RELEASE_KEY"); fi
  # Only the netprobe image is exported, not stage2's plain Lite image as well.
  touch "$pigen/stage2/SKIP_IMAGES"
  log "pi-gen in $pigen (log: $pigen/work/netprobe/build.log)"
  (cd "$pigen" && ./build.sh -c "$ROOT/image/config")
  log "image in $pigen/deploy"
  ls -l "$pigen/deploy"
}

cmd_bundle() {
  npm_deps
  compile
  local version; version=$(node -p 'require("./package.json").version')
  local out="release/netprobe-$version"
  BUNDLE_DIR=$out
  log "bundling $out"
  rm -rf "$out"; mkdir -p "$out"
  cp -r dist "$out/dist"
  cp -r ui "$out/ui"
  cp package.json package-lock.json "$out/"
  (cd "$out" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
  # sql.js ships asm.js, debug, browser and worker builds and zips (30 MB); the service loads only these two.
  find "$out/node_modules/sql.js/dist" -type f ! -name sql-wasm.js ! -name sql-wasm.wasm -delete
  rm -rf "$out/dist/test" "$out/dist/bench"
  # What the appliance needs besides the service: its installer, units and runbook.
  mkdir -p "$out/scripts" "$out/docs"
  cp scripts/install.sh scripts/boot-password.sh scripts/updater.mjs scripts/zerotier-token.sh "$out/scripts/"
  cp -r systemd "$out/systemd"
  cp docs/appliance.md "$out/docs/"
  # One bundle for amd64 and arm64: refuse native modules.
  if find "$out/node_modules" -name '*.node' | grep -q .; then echo "native module in bundle:"; find "$out/node_modules" -name '*.node'; exit 1; fi
  echo "$out"
}

# A release for self-update (docs/update.md): the bundle's tree, plus release.json (version, source commit,
# each module's newest migration: the updater refuses a downgrade across a schema change), committed on top of
# the channel's previous release and tagged v<version>, the tag signed with the SSH key the probes pin.
cmd_publish() {
  local remote=${1:-} channel=${2:-}
  [ -n "$remote" ] && [ -n "$channel" ] || { echo "usage: ./build.sh publish <remote-url> <channel>"; exit 2; }
  local key=${NETPROBE_RELEASE_SIGNING_KEY:-}
  [ -n "$key" ] && [ -f "$key" ] || { echo "set NETPROBE_RELEASE_SIGNING_KEY to the SSH private key that signs releases"; exit 2; }
  git check-ref-format "refs/heads/$channel" || { echo "not a branch name: $channel"; exit 2; }
  local dirty=false
  if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    dirty=true; echo "warning: the checkout has uncommitted changes; release.json says so (\"dirty\": true)"
  fi
  cmd_bundle
  local version dir=$ROOT/$BUNDLE_DIR
  version=$(node -p 'require("./package.json").version')
  if git ls-remote --exit-code --tags "$remote" "refs/tags/v$version" >/dev/null 2>&1; then
    echo "v$version is already published on $remote: raise the version in package.json"; exit 1
  fi
  node --input-type=module -e '
    const [dir, version, commit, dirty] = process.argv.slice(1);
    const { MIGRATIONS } = await import(dir + "/dist/src/main.js");
    const { MIGRATION_RANGES } = await import(dir + "/dist/src/core/store/migrations.js");
    const schema = {};
    for (const r of MIGRATION_RANGES) schema[r.module] = Math.max(0, ...MIGRATIONS.map((m) => m.version).filter((v) => v >= r.from && v <= r.to));
    process.stdout.write(JSON.stringify({ version, commit, dirty: dirty === "true", schema }, null, 2) + "\n");
  ' "$dir" "$version" "$(git rev-parse HEAD)" "$dirty" > "$dir/release.json"
  # In a subshell: its own GIT_DIR (a scratch bare repository) and the scratch directory removed on any exit.
  (
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  local tree commit prev=""
  export GIT_DIR=$work/repo.git GIT_INDEX_FILE=$work/index
  git init --quiet --bare "$GIT_DIR"
  if git fetch --quiet "$remote" "+refs/heads/$channel:refs/heads/$channel" 2>/dev/null; then prev=$(git rev-parse "refs/heads/$channel"); fi
  # The tree is exactly the bundle, whatever .gitignore files its packages carry.
  git --work-tree="$dir" add -A -f .
  tree=$(git write-tree)
  # The changes since the channel's previous release, from this checkout's history, for the tag message.
  local notes="" since=""
  if [ -n "$prev" ]; then since=$(git show "$prev:release.json" 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{console.log(JSON.parse(s).commit||"")}catch{}})'); fi
  if [ -n "$since" ] && GIT_DIR=$ROOT/.git git cat-file -e "$since^{commit}" 2>/dev/null; then
    notes=$(GIT_DIR=$ROOT/.git git log --no-merges --format='- %s' "$since..HEAD" | head -n 60)
  fi
  commit=$(git -c user.name=netprobe-release -c user.email=release@netprobe commit-tree "$tree" ${prev:+-p "$prev"} -m "netprobe $version")
  git update-ref "refs/heads/$channel" "$commit"
  git -c user.name=netprobe-release -c user.email=release@netprobe -c gpg.format=ssh -c "user.signingkey=$key" \
    tag -s -m "netprobe $version" ${notes:+-m "$notes"} "v$version" "$commit"
  git push --quiet "$remote" "refs/heads/$channel" "refs/tags/v$version"
  log "published v$version ($commit) on $channel of $remote"
  )
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
  test-image) cmd_test_image ;;
  image) cmd_image ;;
  bundle) cmd_bundle ;;
  publish) shift; cmd_publish "$@" ;;
  bench) shift; cmd_bench "$@" ;;
  typecheck) cmd_typecheck ;;
  lint) cmd_lint ;;
  *) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
