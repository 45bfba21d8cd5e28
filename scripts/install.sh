#!/usr/bin/env bash
# Turns a Debian 13 (trixie) or Raspberry Pi OS host into a netprobe appliance, or brings one up to date.
#
#   sudo ./scripts/install.sh [--release DIR] [--release-key FILE] [--no-apt]
#
#   --release DIR       the release tree to install (made by ./build.sh bundle); default: the tree this
#                       script is part of
#   --release-key FILE  pin the key that signs releases for self-update: an allowed-signers file or one
#                       SSH public key; installed as /etc/netprobe-update/allowed_signers (root's). Without
#                       a pinned key the updater refuses every release
#   --no-apt            do not install Debian packages (they are managed elsewhere); the programs are still
#                       checked
#
# Idempotent: every step looks before it changes anything, prints one "changed:" line per change and
# the last line says how many there were ("install.sh: no changes" on a second run). It works in a
# chroot as well (the image build): with no systemd running, units are enabled but nothing is started.
#
# Layout: /opt/netprobe/releases/<version> (root's, read-only to the service) with /opt/netprobe/current
# linking to the running one; data in /var/lib/netprobe; configuration in /etc/netprobe/config.yaml.
set -euo pipefail

PREFIX=/opt/netprobe
DATA_DIR=/var/lib/netprobe
CONF_DIR=/etc/netprobe
UNIT_DIR=/etc/systemd/system
SERVICE_USER=netprobe
HTTP_PORT=8080
# What the service and its operators need: Node.js 20+, the programs it drives, mDNS, systemd; ssh-keygen
# (openssh-client) verifies the signatures of releases (git verify-tag); nsupdate (bind9-dnsutils) writes
# ACME dns-01 records by RFC 2136.
PACKAGES=(nodejs fping mtr-tiny snmp git openssh-client bind9-dnsutils avahi-daemon iproute2 iputils-ping ca-certificates libcap2-bin systemd)
UNITS=(netprobe.service netprobe-boot-password.service netprobe-boot-password.path netprobe-update.service netprobe-update.path
  netprobe-zerotier-token.service netprobe-zerotier-token.path)
ENABLE=(netprobe.service netprobe-boot-password.path netprobe-update.path netprobe-zerotier-token.path netprobe-zerotier-token.service)
# The pinned release key: root's directory, not $CONF_DIR (which the service may write).
RELEASE_KEY_DIR=/etc/netprobe-update

release=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
use_apt=1
release_key=
while [ $# -gt 0 ]; do
  case $1 in
    --release) release=$(cd "${2:?--release needs a directory}" && pwd); shift 2 ;;
    --release-key) release_key=$(realpath "${2:?--release-key needs a file}"); shift 2 ;;
    --no-apt) use_apt=0; shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

changes=0
changed() { changes=$((changes + 1)); echo "changed: $*"; }
die() { echo "install.sh: $*" >&2; exit 1; }
# systemd is PID 1 here (not a chroot or an image build): units can be reloaded and started.
systemd_running() { [ -d /run/systemd/system ]; }

[ "$(id -u)" -eq 0 ] || die "run as root (sudo $0)"
command -v dpkg-query >/dev/null || die "this is not a Debian-based system"
for f in package.json dist/src/main.js systemd/netprobe.service; do
  [ -f "$release/$f" ] || die "$release is not a netprobe release tree (build one with ./build.sh bundle)"
done

installed() { dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null | grep -qx installed; }

# ---- Debian packages --------------------------------------------------------------------------------
if [ "$use_apt" = 1 ]; then
  missing=()
  for p in "${PACKAGES[@]}"; do installed "$p" || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    changed "installed packages: ${missing[*]}"
  fi
fi
for program in node fping systemctl; do
  command -v "$program" >/dev/null || die "$program is missing (install the Debian packages: ${PACKAGES[*]})"
done
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' \
  || die "Node.js 20 or newer is needed, this system has $(node -v): use Debian 13 (trixie) or Raspberry Pi OS based on it"

# ---- user -------------------------------------------------------------------------------------------
if ! getent passwd "$SERVICE_USER" >/dev/null; then
  useradd --system --user-group --home-dir "$DATA_DIR" --no-create-home --shell /usr/sbin/nologin \
    --comment "netprobe service" "$SERVICE_USER"
  changed "user $SERVICE_USER"
fi

# ---- helpers ----------------------------------------------------------------------------------------
# ensure_dir PATH OWNER:GROUP MODE
ensure_dir() {
  local path=$1 owner=$2 mode=$3
  if [ ! -d "$path" ]; then
    install -d -o "${owner%:*}" -g "${owner#*:}" -m "$mode" "$path"
    changed "directory $path"
  elif [ "$(stat -c '%U:%G %a' "$path")" != "$owner ${mode#0}" ]; then
    chown "$owner" "$path"; chmod "$mode" "$path"
    changed "owner and mode of $path"
  fi
}

# ensure_file SOURCE DEST MODE: DEST becomes a root-owned copy of SOURCE. Returns 1 when unchanged.
ensure_file() {
  local src=$1 dst=$2 mode=$3
  if cmp -s "$src" "$dst" && [ "$(stat -c '%U %a' "$dst")" = "root ${mode#0}" ]; then return 1; fi
  install -D -o root -g root -m "$mode" "$src" "$dst"
  changed "$dst"
}

# ensure_text DEST MODE: like ensure_file, with the content on stdin.
ensure_text() {
  local tmp rc=0
  tmp=$(mktemp)
  cat >"$tmp"
  ensure_file "$tmp" "$1" "$2" || rc=$?
  rm -f "$tmp"
  return $rc
}

# ---- the release ------------------------------------------------------------------------------------
version=$(node -p 'require(process.argv[1]).version' "$release/package.json")
[[ $version =~ ^[0-9A-Za-z][0-9A-Za-z.+-]*$ ]] || die "unusable version \"$version\" in $release/package.json"
if find "$release/node_modules" -name '*.node' 2>/dev/null | grep -q .; then
  die "the release has native modules; it must run on any architecture (rebuild it with ./build.sh bundle)"
fi
dest=$PREFIX/releases/$version
restart=0
ensure_dir "$PREFIX" root:root 0755
ensure_dir "$PREFIX/releases" root:root 0755
if [ "$(realpath -m "$release")" != "$(realpath -m "$dest")" ] \
   && ! { [ -d "$dest" ] && diff -r -q --no-dereference "$release" "$dest" >/dev/null 2>&1; }; then
  staging=$(mktemp -d "$PREFIX/releases/.$version.XXXXXX")
  cp -a "$release/." "$staging/"
  chown -R root:root "$staging"
  chmod -R u+w,go-w,a+rX "$staging"
  chmod 0755 "$staging"
  if [ -d "$dest" ]; then rm -rf "$dest"; fi
  mv "$staging" "$dest"
  changed "release $version in $dest"
  restart=1
fi
if [ "$(readlink "$PREFIX/current" 2>/dev/null || true)" != "releases/$version" ]; then
  ln -sfn "releases/$version" "$PREFIX/current.new"
  mv -T "$PREFIX/current.new" "$PREFIX/current"
  changed "$PREFIX/current -> releases/$version"
  restart=1
fi

# ---- data and configuration -------------------------------------------------------------------------
# systemd creates the data directory too (StateDirectory=); made here so it exists before the first start.
ensure_dir "$DATA_DIR" "$SERVICE_USER:$SERVICE_USER" 0750
# The service saves its configuration through the API (atomically: a new file, then a rename).
ensure_dir "$CONF_DIR" "$SERVICE_USER:$SERVICE_USER" 0750
if [ ! -e "$CONF_DIR/config.yaml" ]; then
  # Never replaced once there: it is the operator's.
  printf '%s\n' '# netprobe configuration. Every key has a default, so this file may stay empty.' \
    '# Edit it here or in the web UI (Settings); see docs/appliance.md.' \
    | install -o "$SERVICE_USER" -g "$SERVICE_USER" -m 0640 /dev/stdin "$CONF_DIR/config.yaml"
  changed "$CONF_DIR/config.yaml"
fi

# ---- the release key self-update trusts ------------------------------------------------------------
if [ -n "$release_key" ]; then
  [ -f "$release_key" ] || die "--release-key $release_key is not a file"
  ensure_dir "$RELEASE_KEY_DIR" root:root 0755
  # One bare public key becomes an allowed-signers line for git's "git" namespace.
  if grep -qE '^(ssh-|ecdsa-|sk-)' "$release_key"; then
    sed 's/^/release@netprobe namespaces="git" /' "$release_key" | ensure_text "$RELEASE_KEY_DIR/allowed_signers" 0644 || true
  else
    ensure_file "$release_key" "$RELEASE_KEY_DIR/allowed_signers" 0644 || true
  fi
fi

# ---- systemd units ----------------------------------------------------------------------------------
units_changed=0
for unit in "${UNITS[@]}"; do
  if ensure_file "$release/systemd/$unit" "$UNIT_DIR/$unit" 0644; then units_changed=1; fi
done
if [ "$units_changed" = 1 ]; then
  restart=1
  if systemd_running; then systemctl daemon-reload; fi
fi
for unit in "${ENABLE[@]}"; do
  if ! systemctl is-enabled --quiet "$unit" 2>/dev/null; then
    systemctl enable --quiet "$unit"
    changed "enabled $unit"
  fi
done

# ---- mDNS: http://netprobe.local:8080/ and a browsable _http._tcp service ---------------------------
ensure_text /etc/avahi/services/netprobe.service 0644 <<EOF || true
<?xml version="1.0" standalone='no'?>
<!DOCTYPE service-group SYSTEM "avahi-service.dtd">
<!-- Installed by netprobe's install.sh: the web UI, advertised over mDNS. -->
<service-group>
  <name replace-wildcards="yes">netprobe on %h</name>
  <service>
    <type>_http._tcp</type>
    <port>$HTTP_PORT</port>
    <txt-record>path=/</txt-record>
  </service>
</service-group>
EOF

# ---- a quiet SD card --------------------------------------------------------------------------------
# The journal lives in RAM, capped; the service's own store is the only thing written steadily.
if ensure_text /etc/systemd/journald.conf.d/netprobe.conf 0644 <<'EOF'
# Installed by netprobe's install.sh: keep the journal in RAM so logging does not wear the SD card.
[Journal]
Storage=volatile
RuntimeMaxUse=32M
EOF
then
  if systemd_running; then systemctl restart systemd-journald; fi
fi
# No swap file: Raspberry Pi OS up to bookworm swaps to /var/swap through dphys-swapfile ...
if installed dphys-swapfile; then
  if systemctl is-enabled --quiet dphys-swapfile 2>/dev/null; then
    systemctl disable --quiet dphys-swapfile
    changed "disabled dphys-swapfile"
  fi
  if [ -f /var/swap ]; then
    if systemd_running; then dphys-swapfile swapoff || true; fi
    rm -f /var/swap
    changed "removed the swap file /var/swap"
  fi
fi
# ... and from trixie through rpi-swap, whose default also pages out to a file: compressed RAM only.
if [ -f /etc/rpi/swap.conf ]; then
  ensure_text /etc/rpi/swap.conf.d/80-netprobe.conf 0644 <<'EOF' || true
# Installed by netprobe's install.sh: swap to compressed RAM only, never to a file on the SD card.
# Takes effect at the next boot.
[Main]
Mechanism=zram
EOF
fi

# ---- start ------------------------------------------------------------------------------------------
if systemd_running; then
  if [ "$restart" = 1 ] && systemctl is-active --quiet netprobe.service; then
    systemctl restart netprobe.service
    changed "restarted netprobe.service"
  elif ! systemctl is-active --quiet netprobe.service; then
    systemctl start netprobe.service
    changed "started netprobe.service"
  fi
  for path_unit in netprobe-boot-password.path netprobe-update.path netprobe-zerotier-token.path; do
    if ! systemctl is-active --quiet "$path_unit"; then
      systemctl start "$path_unit"
      changed "started $path_unit"
    fi
  done
else
  echo "systemd is not running here (chroot or image build): netprobe starts at the next boot"
fi

if [ "$changes" -eq 0 ]; then echo "install.sh: no changes"; else echo "install.sh: $changes changes"; fi
