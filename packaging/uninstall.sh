#!/usr/bin/env bash
# Removes what install.sh installed: stops and disables the service, removes the unit and the
# binary. The config, the data (database, media, secret.key, backups) and the user adcab stay
# unless --purge is given.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: uninstall.sh [--prefix /usr/local] [--config-dir /etc/adcab] [--state-dir /var/lib/adcab]
                    [--purge]

  Give the same --prefix, --config-dir and --state-dir as to install.sh.
  --purge   also delete the config folder, the data folder (the database, its media,
            secret.key and the backups in it: gone for good) and the user and group adcab
EOF
}

say() { printf 'uninstall.sh: %s\n' "$*"; }
die() {
    printf 'uninstall.sh: %s\n' "$*" >&2
    exit 1
}

# As install.sh reads them; a folder to delete must also be adcab's own (its name says adcab).
directory() {
    local name=$1 value=${2%/}
    case $value in
        /?*) ;;
        *) die "$name must be an absolute path other than /: '$2'" ;;
    esac
    [[ $value =~ ^[A-Za-z0-9/._-]+$ ]] || die "$name may hold only letters, digits and / . _ -: '$2'"
    printf '%s' "$value"
}

prefix=/usr/local
config_dir=/etc/adcab
state_dir=/var/lib/adcab
purge=0
unit_path=/etc/systemd/system/adcab.service

while [ $# -gt 0 ]; do
    case $1 in
        --prefix | --config-dir | --state-dir)
            [ $# -ge 2 ] || die "$1 needs a value (--help tells the options)"
            case $1 in
                --prefix) prefix=$(directory --prefix "$2") ;;
                --config-dir) config_dir=$(directory --config-dir "$2") ;;
                --state-dir) state_dir=$(directory --state-dir "$2") ;;
            esac
            shift 2
            ;;
        --purge)
            purge=1
            shift
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        *) die "unknown option '$1' (--help tells the options)" ;;
    esac
done

[ "$(id -u)" -eq 0 ] || die "run it as root"
if [ "$purge" -eq 1 ]; then
    for dir in "$config_dir" "$state_dir"; do
        case ${dir##*/} in
            *adcab*) ;;
            *) die "--purge deletes only folders named for adcab; refusing to delete $dir" ;;
        esac
    done
fi

if [ -d /run/systemd/system ]; then
    if [ -e "$unit_path" ] && systemctl disable --now adcab; then
        say "stopped and disabled adcab"
    fi
elif command -v systemctl >/dev/null; then
    systemctl disable adcab 2>/dev/null || true
fi

rm -f "$unit_path" "$unit_path.old"
say "removed $unit_path"
rm -f "$prefix/bin/adcab"
say "removed $prefix/bin/adcab"

if [ "$purge" -eq 1 ]; then
    rm -rf "$unit_path.d" "$config_dir" "$state_dir"
    say "deleted $unit_path.d, $config_dir and $state_dir"
    if getent passwd adcab >/dev/null; then
        userdel adcab
        say "deleted the user adcab"
    fi
    if getent group adcab >/dev/null; then
        groupdel adcab
        say "deleted the group adcab"
    fi
else
    say "kept $config_dir, $state_dir (the database and its backups) and the user adcab; --purge deletes them"
fi
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload
    systemctl reset-failed adcab 2>/dev/null || true
fi
