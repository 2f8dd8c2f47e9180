#!/usr/bin/env bash
# Installs adcab on a Debian or Ubuntu machine run by systemd: the binary, the system user
# adcab, the unit and the production config, then starts the service.
#
# Running it again is the upgrade: the new binary is checked against the config and the
# database first (an old adcab keeps running when that fails), then replaces the old one and
# the service is restarted; the server backs up the database before it applies new
# migrations. The operator's config is never overwritten.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: install.sh [--binary PATH] [--prefix /usr/local] [--config-dir /etc/adcab]
                  [--state-dir /var/lib/adcab] [--no-start]

  --binary PATH      the adcab binary to install (default: target/dist/adcab of the repository
                     this script is in, else ./adcab beside this script)
  --prefix DIR       the binary goes to DIR/bin/adcab (default /usr/local)
  --config-dir DIR   adcab.toml goes there (default /etc/adcab)
  --state-dir DIR    the database, media, secret.key and backups (default /var/lib/adcab)
  --no-start         install everything but do not enable, start or restart the service

Run as root. Running it again upgrades: the binary is replaced and the service restarted;
an existing adcab.toml is kept and this release's copy is written beside it as adcab.toml.new.
EOF
}

say() { printf 'install.sh: %s\n' "$*"; }
warn() { printf 'install.sh: warning: %s\n' "$*" >&2; }
die() {
    printf 'install.sh: %s\n' "$*" >&2
    exit 1
}

# An absolute path without a trailing slash, of characters that need no quoting in sed or in
# a unit file.
directory() {
    local name=$1 value=${2%/}
    case $value in
        /?*) ;;
        *) die "$name must be an absolute path other than /: '$2'" ;;
    esac
    [[ $value =~ ^[A-Za-z0-9/._-]+$ ]] || die "$name may hold only letters, digits and / . _ -: '$2'"
    printf '%s' "$value"
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
arguments="$*"
binary=""
prefix=/usr/local
config_dir=/etc/adcab
state_dir=/var/lib/adcab
start=1
unit_path=/etc/systemd/system/adcab.service

while [ $# -gt 0 ]; do
    case $1 in
        --binary | --prefix | --config-dir | --state-dir)
            [ $# -ge 2 ] || die "$1 needs a value (--help tells the options)"
            case $1 in
                --binary) binary=$2 ;;
                --prefix) prefix=$(directory --prefix "$2") ;;
                --config-dir) config_dir=$(directory --config-dir "$2") ;;
                --state-dir) state_dir=$(directory --state-dir "$2") ;;
            esac
            shift 2
            ;;
        --no-start)
            start=0
            shift
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        *) die "unknown option '$1' (--help tells the options)" ;;
    esac
done

[ "$(id -u)" -eq 0 ] || die "run it as root, for example: sudo $0 $arguments"

# --- What is being installed, and where -------------------------------------------------

if [ -r /etc/os-release ]; then
    # shellcheck source=/dev/null
    os=$(. /etc/os-release && printf '%s %s|%s' "${ID:-}" "${ID_LIKE:-}" "${PRETTY_NAME:-${ID:-unknown}}")
else
    os=" |an unknown system (no /etc/os-release)"
fi
case ${os%%|*} in
    *debian* | *ubuntu*) say "installing on ${os#*|}" ;;
    *) warn "this script is made for Debian and Ubuntu; this is ${os#*|}. Going on: check each step." ;;
esac

if [ -z "$binary" ]; then
    for candidate in "$here/../target/dist/adcab" "$here/adcab"; do
        if [ -f "$candidate" ]; then
            binary=$candidate
            break
        fi
    done
    [ -n "$binary" ] || die "no binary to install: build one with 'cargo build --profile dist' (target/dist/adcab), put it beside this script as ./adcab, or pass --binary PATH"
fi
[ -f "$binary" ] || die "there is no file at $binary"
version=$("$binary" --version 2>&1) || die "$binary does not run on this machine: $version"
case $version in
    adcab\ *) ;;
    *) die "$binary is not adcab: --version printed '$version'" ;;
esac
for file in adcab.service adcab.toml; do
    [ -f "$here/$file" ] || die "$file is missing beside this script ($here)"
done

bin=$prefix/bin/adcab
config=$config_dir/adcab.toml

# The packaged files name the default paths; write this install's paths in their place.
render() {
    sed -e 's#/usr/local/bin/adcab#@ADCAB_BIN@#g' \
        -e 's#/etc/adcab/adcab\.toml#@ADCAB_CONFIG@#g' \
        -e 's#/var/lib/adcab#@ADCAB_STATE@#g' \
        -e "s#@ADCAB_BIN@#$bin#g" \
        -e "s#@ADCAB_CONFIG@#$config#g" \
        -e "s#@ADCAB_STATE@#$state_dir#g" \
        "$1"
}

# StateDirectory= names a folder under /var/lib; elsewhere ReadWritePaths= alone opens it.
render_unit() {
    case $state_dir in
        /var/lib/?*) render "$here/adcab.service" | sed -e "s#^StateDirectory=adcab\$#StateDirectory=${state_dir#/var/lib/}#" ;;
        *) render "$here/adcab.service" | sed -e '/^StateDirectory=/d' -e '/^StateDirectoryMode=/d' ;;
    esac
}

work=$(mktemp -d)
staged=""
cleanup() {
    rm -rf "$work"
    if [ -n "$staged" ]; then rm -f "$staged"; fi
}
trap cleanup EXIT

# Runs a command as adcab with a clean environment (as the unit does: no ADCAB_* from root's
# shell) and the unit's umask.
as_adcab() {
    (
        cd "$state_dir"
        umask 0077
        env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
            runuser -u adcab -- "$@"
    )
}
command -v runuser >/dev/null || die "runuser (util-linux) is missing"

# --- The user, the folders and the config -----------------------------------------------

if getent group adcab >/dev/null; then
    say "group adcab exists"
else
    groupadd --system adcab
    say "created the system group adcab"
fi
if getent passwd adcab >/dev/null; then
    say "user adcab exists"
else
    nologin=/usr/sbin/nologin
    [ -x "$nologin" ] || nologin=/bin/false
    useradd --system --gid adcab --home-dir "$state_dir" --no-create-home \
        --shell "$nologin" --comment "adcab service" adcab
    say "created the system user adcab (home $state_dir, no login)"
fi

install -d -m 0755 "$prefix/bin"
install -d -m 0750 -o root -g adcab "$config_dir"
install -d -m 0750 -o adcab -g adcab "$state_dir"
chown root:adcab "$config_dir" && chmod 0750 "$config_dir"
chown adcab:adcab "$state_dir" && chmod 0750 "$state_dir"

render "$here/adcab.toml" >"$work/adcab.toml"
if [ ! -e "$config" ]; then
    install -m 0640 -o root -g adcab "$work/adcab.toml" "$config"
    say "installed the production config as $config"
elif cmp -s "$work/adcab.toml" "$config"; then
    rm -f "$config.new"
    say "$config is this release's production config already"
else
    install -m 0640 -o root -g adcab "$work/adcab.toml" "$config.new"
    say "kept your $config; this release's production config is beside it as $config.new (compare: diff $config $config.new)"
fi
chown root:adcab "$config" && chmod 0640 "$config"

# --- The new binary, checked before it replaces anything ---------------------------------

staged=$prefix/bin/.adcab.new.$$
install -m 0755 -o root -g root "$binary" "$staged"

if ! shown=$(as_adcab "$staged" --config "$config" config show); then
    die "$version refuses $config (see above); the installed binary and the service are unchanged. Fix the config (compare it with $config.new when there is one) and run install.sh again."
fi
database=$(printf '%s' "$shown" | sed -n 's/.*"storage":{[^{}]*"path":"\([^"]*\)".*/\1/p')
listen=$(printf '%s' "$shown" | sed -n 's/.*"server":{[^{}]*"listen":"\([^"]*\)".*/\1/p')
[ -n "$database" ] || die "cannot read storage.path from 'adcab config show': $shown"

if [ ! -e "$database" ]; then
    as_adcab "$staged" --config "$config" init >/dev/null ||
        die "could not create the database $database (see above)"
    say "created the database $database"
fi
if ! checked=$(as_adcab "$staged" --config "$config" check); then
    die "'adcab check' failed: $checked; the installed binary and the service are unchanged"
fi
say "adcab check: $checked"

previous=""
if [ -x "$bin" ]; then previous=$("$bin" --version 2>/dev/null || true); fi
if [ -e "$bin" ] && cmp -s "$staged" "$bin"; then
    changed=0
    say "$bin is $version already"
else
    changed=1
    mv -f "$staged" "$bin"
    if [ -n "$previous" ]; then
        say "replaced $bin: $previous -> $version"
    else
        say "installed $bin: $version"
    fi
fi
rm -f "$staged"
staged=""

# --- The unit ------------------------------------------------------------------------------

render_unit >"$work/adcab.service"
if [ -e "$unit_path" ] && cmp -s "$work/adcab.service" "$unit_path"; then
    say "$unit_path is current"
else
    if [ -e "$unit_path" ]; then
        cp -p "$unit_path" "$unit_path.old"
        changed=1
        say "updated $unit_path (the previous copy is $unit_path.old; keep local changes in 'systemctl edit adcab')"
    else
        say "installed $unit_path"
    fi
    install -m 0644 -o root -g root "$work/adcab.service" "$unit_path"
fi

# --- Starting ----------------------------------------------------------------------------

state="not started"
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload
    if [ "$start" -eq 0 ]; then
        if systemctl is-active --quiet adcab; then
            state="running the previous binary until 'systemctl restart adcab' (--no-start)"
        else
            state="not started (--no-start): 'systemctl enable --now adcab' starts it"
        fi
    elif systemctl is-active --quiet adcab; then
        if [ "$changed" -eq 1 ]; then
            say "restarting adcab (the server backs up the database before it applies new migrations)"
            systemctl restart adcab ||
                die "adcab did not start again: journalctl -u adcab -n 50 --no-pager tells why"
            state="restarted"
        else
            state="running (nothing changed, not restarted)"
        fi
        systemctl enable --quiet adcab
    else
        systemctl enable --now adcab ||
            die "adcab did not start: journalctl -u adcab -n 50 --no-pager tells why"
        state="enabled and started"
    fi
else
    say "systemd is not running here (a container or a chroot?): adcab is not started"
    if [ "$start" -eq 1 ] && command -v systemctl >/dev/null && systemctl enable --quiet adcab 2>/dev/null; then
        state="enabled for the next boot, not started (systemd is not running)"
    else
        state="not started (systemd is not running): 'systemctl enable --now adcab' on the real machine"
    fi
fi

cat <<EOF

adcab is installed: $version
  binary    $bin
  config    $config (root:adcab 0640)
  data      $state_dir (adcab:adcab 0750), database $database
  unit      $unit_path: $state
  listens   ${listen:-see $config}

Next steps:
  1. Run the guided setup: the owner's panel password, the public address, and a Telegram Ads
     token checked and connected (or the simulator kept), then restart the service:
       sudo $bin --config $config setup
       sudo systemctl restart adcab
     By hand instead (as adcab): admin user add, admin user set --password-stdin, and
     admin cabinet connect --token-stdin (README, "Connecting a real Telegram Ads account").
  2. Put TLS in front with Caddy or nginx: packaging/Caddyfile.example, packaging/nginx.conf.example
     (README, "Install on a VPS"). Keep /metrics off the public side.
  3. Follow it: journalctl -u adcab -f; readiness: curl -s http://${listen:-127.0.0.1:8080}/readyz
  To upgrade later, run this script again with the new binary.
EOF
