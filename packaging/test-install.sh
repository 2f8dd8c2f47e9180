#!/usr/bin/env bash
# Tests the install scripts. First shellcheck on packaging/*.sh; then, as root with debootstrap
# (installed through apt-get when missing), a fresh Debian chroot in which install.sh runs as
# a first install, an upgrade, a refused upgrade, with other folders, and uninstall.sh runs
# with and without --purge; each result is checked from inside the chroot. Then the Debian
# package, built from the same binary by build-packages.sh --binary (cargo-deb), is installed
# with dpkg -i into a fresh copy of the chroot, upgraded (a backup first), refused an upgrade
# whose backup fails, removed, purged and installed again over the kept data. Then every
# ```sh install block of README.md runs as written in a fresh chroot (the build lines taken as
# done, sudo as root; see that section). With --boot, the
# same system is then booted by systemd-nspawn and install.sh starts the real unit: readiness
# (Type=notify), the sandbox, /readyz, a restart by upgrade, the watchdog and a clean stop;
# then the package replaces that install: started by dpkg -i, restarted by its upgrade,
# stopped by dpkg -r.
#
#   packaging/test-install.sh [--config FILE] [--workdir DIR] [--suite NAME] [--mirror URL]
#                             [--boot] [--keep] [BINARY]
#
# BINARY defaults to target/dist/adcab, else target/release/adcab. --config installs FILE
# instead of packaging/adcab.toml (for a binary older than the packaged config). The
# debootstrapped base is kept in WORKDIR (default /var/tmp/adcab-test-install) and reused;
# each run copies it afresh. --boot takes about two minutes more (the watchdog check waits
# for WatchdogSec) and needs systemd-nspawn (package systemd-container). The package part
# needs cargo-deb (cargo install cargo-deb --version 3.8.0 --locked) and dpkg-deb, and always
# holds packaging/adcab.toml (--config is for install.sh). Prints PASS/FAIL lines, then
# "N passed, N failed"; exits non-zero when one failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
binary=""
config="$here/adcab.toml"
workdir=/var/tmp/adcab-test-install
suite=""
mirror=""
keep=0
boot=0

while [ $# -gt 0 ]; do
    case $1 in
        --config | --workdir | --suite | --mirror)
            [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }
            case $1 in
                --config) config=$2 ;;
                --workdir) workdir=$2 ;;
                --suite) suite=$2 ;;
                --mirror) mirror=$2 ;;
            esac
            shift 2
            ;;
        --keep) keep=1; shift ;;
        --boot) boot=1; shift ;;
        -h | --help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "unknown option $1" >&2; exit 2 ;;
        *) binary=$1; shift ;;
    esac
done

passed=0
failed=0
pass() { passed=$((passed + 1)); printf 'PASS %s\n' "$1"; }
fail() { failed=$((failed + 1)); printf 'FAIL %s%s\n' "$1" "${2:+: $2}"; }
# check NAME COMMAND...: PASS when the command succeeds.
check() {
    local name=$1
    shift
    if "$@" >/dev/null 2>&1; then pass "$name"; else fail "$name"; fi
}
# same NAME EXPECTED ACTUAL
same() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi
}
finish() {
    printf '%s passed, %s failed\n' "$passed" "$failed"
    if [ "$failed" -eq 0 ]; then exit 0; fi
    exit 1
}
can_apt() { [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; }

# --- shellcheck ------------------------------------------------------------------------------

if ! command -v shellcheck >/dev/null && can_apt; then
    apt-get install -y -qq shellcheck >/dev/null 2>&1 || true
fi
if command -v shellcheck >/dev/null; then
    if out=$(shellcheck "$here"/*.sh 2>&1); then
        pass "shellcheck packaging/*.sh"
    else
        printf '%s\n' "$out"
        fail "shellcheck packaging/*.sh"
    fi
    # The Debian package's maintainer scripts run under dpkg's /bin/sh.
    if out=$(shellcheck -s sh "$here"/deb/preinst "$here"/deb/postinst "$here"/deb/prerm "$here"/deb/postrm 2>&1); then
        pass "shellcheck packaging/deb/ maintainer scripts"
    else
        printf '%s\n' "$out"
        fail "shellcheck packaging/deb/ maintainer scripts"
    fi
else
    fail "shellcheck packaging/*.sh" "shellcheck is not installed (apt-get install shellcheck)"
fi

# The package's unit is packaging/adcab.service with its own opening comment and /usr/bin.
if diff <(sed '1,/^$/d' "$here/adcab.service" | sed 's#^ExecStart=/usr/local/bin/adcab #ExecStart=/usr/bin/adcab #') \
    <(sed '1,/^$/d' "$here/deb/adcab.service") >"${TMPDIR:-/tmp}/adcab-unit.diff.$$"; then
    pass "packaging/deb/adcab.service is packaging/adcab.service with /usr/bin/adcab"
else
    sed 's/^/    | /' "${TMPDIR:-/tmp}/adcab-unit.diff.$$"
    fail "packaging/deb/adcab.service is packaging/adcab.service with /usr/bin/adcab" "they differ (above)"
fi
rm -f "${TMPDIR:-/tmp}/adcab-unit.diff.$$"

# --- the chroot ------------------------------------------------------------------------------

if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP the chroot install test: it needs root"
    finish
fi
if [ -z "$binary" ]; then
    for candidate in "$repo/target/dist/adcab" "$repo/target/release/adcab"; do
        if [ -x "$candidate" ]; then binary=$candidate; break; fi
    done
fi
if [ -z "$binary" ] || [ ! -x "$binary" ]; then
    fail "chroot install test" "no adcab binary (build one, or pass its path)"
    finish
fi
if ! command -v debootstrap >/dev/null && can_apt; then
    apt-get install -y -qq debootstrap >/dev/null 2>&1 || true
fi
if ! command -v debootstrap >/dev/null; then
    echo "SKIP the chroot install test: debootstrap is not available"
    finish
fi

if [ -z "$suite" ]; then
    # shellcheck source=/dev/null
    suite=$(if . /etc/os-release 2>/dev/null && [ "${ID:-}" = debian ]; then printf '%s' "${VERSION_CODENAME:-}"; fi)
    suite=${suite:-bookworm}
fi
if [ -z "$mirror" ]; then
    # The Debian mirror this machine's apt already uses (deb822 or one-line sources).
    mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
        sed -n 's#^URIs:[[:space:]]*\([^[:space:]]*/debian\)/\{0,1\}$#\1#p' | head -n 1)
    if [ -z "$mirror" ]; then
        mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
            sed -n 's#^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\{0,1\}\([^[:space:]]*/debian\)/\{0,1\}[[:space:]].*#\2#p' | head -n 1)
    fi
    mirror=${mirror:-http://deb.debian.org/debian}
fi

mkdir -p "$workdir"
base=$workdir/base-$suite
if [ ! -d "$base" ]; then
    echo "debootstrap $suite from $mirror into $base (once; later runs reuse it)"
    rm -rf "$base.tmp"
    if ! debootstrap --variant=minbase --include=systemd "$suite" "$base.tmp" "$mirror" \
        >"$workdir/debootstrap.log" 2>&1; then
        tail -n 20 "$workdir/debootstrap.log"
        fail "debootstrap $suite" "see $workdir/debootstrap.log"
        finish
    fi
    mv "$base.tmp" "$base"
fi

root=$workdir/root
broot=$workdir/boot
nspawn=""
cleanup() {
    if mountpoint -q "$root/proc" 2>/dev/null; then umount "$root/proc"; fi
    if [ -n "$nspawn" ] && kill "$nspawn" 2>/dev/null; then
        # SIGTERM asks the container's systemd to power off; nspawn exits when it has.
        for _ in $(seq 30); do kill -0 "$nspawn" 2>/dev/null || break; sleep 1; done
        kill -KILL "$nspawn" 2>/dev/null || true
    fi
    nspawn=""
    if [ "$keep" -eq 0 ]; then rm -rf --one-file-system "$root" "$broot"; fi
}
trap cleanup EXIT
cleanup
rm -rf --one-file-system "$root" "$broot"
cp -a "$base" "$root"
mount -t proc proc "$root/proc"

release=/usr/src/adcab-release # install.sh with ./adcab beside it, as in a release archive
mkdir -p "$root$release"
cp "$here/install.sh" "$here/uninstall.sh" "$here/adcab.service" "$root$release/"
cp "$config" "$root$release/adcab.toml"
cp "$binary" "$root$release/adcab"

# Runs a command inside the chroot with a clean environment.
inside() {
    chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 "$@"
}
# mode_owner PATH: "640 root:adcab", read inside (the chroot's user names).
mode_owner() { inside stat -c '%a %U:%G' "$1" 2>&1 || true; }
# install_run NAME ARGS...: runs install.sh inside; its output is in $log.
log=$workdir/install.log
install_run() {
    local name=$1
    shift
    if inside bash "$release/install.sh" "$@" >"$log" 2>&1; then
        pass "$name"
    else
        sed 's/^/    | /' "$log"
        fail "$name" "exit code non-zero"
    fi
}
as_adcab() { inside runuser -u adcab -- "$@"; }

echo "== first install (--no-start) into a fresh $suite chroot"
install_run "install.sh --no-start exits 0" --no-start
IFS=: read -r _ _ uid gid _ home shell < <(inside getent passwd adcab || true) || true
check "user adcab exists" inside getent passwd adcab
if [ -n "${uid:-}" ] && [ "$uid" -lt 1000 ]; then pass "adcab is a system user (uid $uid)"; else fail "adcab is a system user" "uid '${uid:-}'"; fi
same "adcab's primary group is adcab" "adcab" "$(inside getent group "${gid:-x}" | cut -d: -f1)"
same "adcab's home is the state dir" /var/lib/adcab "${home:-}"
same "adcab cannot log in" /usr/sbin/nologin "${shell:-}"
check "unit installed as packaged" cmp "$here/adcab.service" "$root/etc/systemd/system/adcab.service"
same "unit mode" "644 root:root" "$(mode_owner /etc/systemd/system/adcab.service)"
check "config installed as packaged" cmp "$config" "$root/etc/adcab/adcab.toml"
same "config mode" "640 root:adcab" "$(mode_owner /etc/adcab/adcab.toml)"
same "config dir mode" "750 root:adcab" "$(mode_owner /etc/adcab)"
same "state dir mode" "750 adcab:adcab" "$(mode_owner /var/lib/adcab)"
same "database created by adcab, private" "600 adcab:adcab" "$(mode_owner /var/lib/adcab/adcab.db)"
same "binary mode" "755 root:root" "$(mode_owner /usr/local/bin/adcab)"
same "nothing staged is left in /usr/local/bin" "adcab" "$(ls -A "$root/usr/local/bin")"
same "adcab --version inside" "$("$binary" --version)" "$(inside /usr/local/bin/adcab --version 2>&1)"
check "adcab check as adcab" as_adcab adcab --config /etc/adcab/adcab.toml check
created=$(as_adcab adcab --config /etc/adcab/adcab.toml admin user add --email ops@example.com 2>&1 || true)
same "admin user add as adcab" '{"id":1}' "$created"
check "not enabled with --no-start" test ! -e "$root/etc/systemd/system/multi-user.target.wants/adcab.service"
check "the summary names the next step" grep -q "admin user add" "$log"
if inside systemd-analyze verify /etc/systemd/system/adcab.service >"$workdir/verify.log" 2>&1 &&
    [ ! -s "$workdir/verify.log" ]; then
    pass "systemd-analyze verify adcab.service"
else
    sed 's/^/    | /' "$workdir/verify.log"
    fail "systemd-analyze verify adcab.service"
fi

echo "== not root"
if inside runuser -u nobody -- bash "$release/install.sh" >"$log" 2>&1; then
    fail "refuses to run as a user other than root"
else
    check "refuses to run as a user other than root" grep -q "run it as root" "$log"
fi

echo "== second run, the operator's config edited (an upgrade with the same binary)"
printf '\n# changed by the operator\n' >>"$root/etc/adcab/adcab.toml"
install_run "install.sh again exits 0"
check "the operator's config is kept" grep -q "changed by the operator" "$root/etc/adcab/adcab.toml"
check "the packaged config is beside it as adcab.toml.new" cmp "$config" "$root/etc/adcab/adcab.toml.new"
same "adcab.toml.new mode" "640 root:adcab" "$(mode_owner /etc/adcab/adcab.toml.new)"
check "install.sh says it kept the config" grep -q "kept your /etc/adcab/adcab.toml" "$log"
same "one user adcab" 1 "$(grep -c '^adcab:' "$root/etc/passwd")"
same "one group adcab" 1 "$(grep -c '^adcab:' "$root/etc/group")"
check "the data is kept" sh -c "chroot '$root' runuser -u adcab -- adcab --config /etc/adcab/adcab.toml admin user list | grep -q ops@example.com"
check "says systemd is not running" grep -q "systemd is not running" "$log"
check "enabled for the next boot without systemd running" test -L "$root/etc/systemd/system/multi-user.target.wants/adcab.service"

echo "== an upgrade the new binary refuses, then the same upgrade fixed"
cp "$binary" "$root$release/adcab"
printf '\n' >>"$root$release/adcab" # a different file that still runs: a "new release"
cp "$root/etc/adcab/adcab.toml" "$workdir/adcab.toml.good"
printf '\n[no_such_section]\nsetting = 1\n' >>"$root/etc/adcab/adcab.toml"
if inside bash "$release/install.sh" >"$log" 2>&1; then
    fail "refuses a config the new binary rejects"
else
    pass "refuses a config the new binary rejects"
fi
check "the refusal names the key" grep -q "no_such_section" "$log"
check "the installed binary is unchanged after the refusal" cmp "$binary" "$root/usr/local/bin/adcab"
same "nothing staged is left after the refusal" "adcab" "$(ls -A "$root/usr/local/bin")"
cp "$workdir/adcab.toml.good" "$root/etc/adcab/adcab.toml"
install_run "the upgrade goes through once the config is fixed"
check "the new binary replaced the old one" cmp "$root$release/adcab" "$root/usr/local/bin/adcab"
check "install.sh reports the replacement" grep -q "replaced /usr/local/bin/adcab" "$log"

echo "== uninstall.sh, then --purge"
if inside bash "$release/uninstall.sh" >"$log" 2>&1; then pass "uninstall.sh exits 0"; else sed 's/^/    | /' "$log"; fail "uninstall.sh exits 0"; fi
check "binary removed" test ! -e "$root/usr/local/bin/adcab"
check "unit removed" test ! -e "$root/etc/systemd/system/adcab.service"
check "unit disabled" test ! -e "$root/etc/systemd/system/multi-user.target.wants/adcab.service"
check "data kept" test -f "$root/var/lib/adcab/adcab.db"
check "config kept" test -f "$root/etc/adcab/adcab.toml"
check "user kept" inside getent passwd adcab
if inside bash "$release/uninstall.sh" --purge >"$log" 2>&1; then pass "uninstall.sh --purge exits 0"; else sed 's/^/    | /' "$log"; fail "uninstall.sh --purge exits 0"; fi
check "data deleted" test ! -e "$root/var/lib/adcab"
check "config deleted" test ! -e "$root/etc/adcab"
check "user deleted" test -z "$(inside getent passwd adcab || true)"
check "group deleted" test -z "$(inside getent group adcab || true)"

echo "== install with other folders"
install_run "install.sh with --prefix, --config-dir and --state-dir exits 0" \
    --prefix /opt/adcab --config-dir /srv/adcab/etc --state-dir /srv/adcab/data --no-start
unit=$root/etc/systemd/system/adcab.service
check "ExecStart names the binary and config" grep -qx "ExecStart=/opt/adcab/bin/adcab --config /srv/adcab/etc/adcab.toml serve" "$unit"
check "ReadWritePaths names the state dir" grep -qx "ReadWritePaths=/srv/adcab/data" "$unit"
check "WorkingDirectory names the state dir" grep -qx "WorkingDirectory=/srv/adcab/data" "$unit"
check "no StateDirectory outside /var/lib" test -z "$(grep '^StateDirectory' "$unit" || true)"
check "config names the database in the state dir" grep -qx 'path = "/srv/adcab/data/adcab.db"' "$root/srv/adcab/etc/adcab.toml"
same "database in the state dir" "600 adcab:adcab" "$(mode_owner /srv/adcab/data/adcab.db)"
check "adcab check as adcab" as_adcab /opt/adcab/bin/adcab --config /srv/adcab/etc/adcab.toml check
if inside systemd-analyze verify /etc/systemd/system/adcab.service >"$workdir/verify.log" 2>&1 &&
    [ ! -s "$workdir/verify.log" ]; then
    pass "systemd-analyze verify the rewritten unit"
else
    sed 's/^/    | /' "$workdir/verify.log"
    fail "systemd-analyze verify the rewritten unit"
fi

# --- the Debian package -------------------------------------------------------------------------

echo "== the Debian package: built from the same binary by build-packages.sh --binary (cargo deb)"
version=$(sed -n 's/^version = "\([^"]*\)"$/\1/p' "$repo/Cargo.toml" | head -n 1)
debs=$workdir/debs
rm -rf "$debs"
deb_built=1
for revision in 1 2; do
    if ! bash "$here/build-packages.sh" --binary "$binary" --deb-version "$version-$revision" --fast \
        --out "$debs/$revision" >"$log" 2>&1; then
        sed 's/^/    | /' "$log"
        deb_built=0
    fi
done
if [ "$deb_built" -eq 1 ]; then
    pass "build-packages.sh --binary makes the .deb ($version-1 and $version-2)"
else
    fail "build-packages.sh --binary makes the .deb" "see above (cargo-deb: cargo install cargo-deb --version 3.8.0 --locked)"
    finish
fi
deb1=$(ls "$debs"/1/*.deb)
deb2=$(ls "$debs"/2/*.deb)
same "the package is named adcab" adcab "$(dpkg-deb -f "$deb1" Package)"
same "the package's version" "$version-1" "$(dpkg-deb -f "$deb1" Version)"
same "the package holds the binary, the unit, the config and the docs" \
    "./etc/adcab/adcab.toml ./usr/bin/adcab ./usr/lib/systemd/system/adcab.service ./usr/share/doc/adcab/README.md" \
    "$(dpkg-deb -c "$deb1" | awk '{print $6}' | grep -E '^\./(usr/bin/adcab|etc/adcab/adcab\.toml|usr/lib/systemd/system/adcab\.service|usr/share/doc/adcab/README\.md)$' | sort | tr '\n' ' ' | sed 's/ $//')"
same "the package carries the licence of the font its PDFs embed" \
    "./usr/share/doc/adcab/fonts-dejavu.LICENSE" \
    "$(dpkg-deb -c "$deb1" | awk '{print $6}' | grep -F fonts-dejavu)"

# A fresh copy of the base system: nothing of the install.sh runs above is left.
umount "$root/proc"
rm -rf --one-file-system "$root"
cp -a "$base" "$root"
mount -t proc proc "$root/proc"
cp "$deb1" "$root/tmp/adcab-1.deb"
cp "$deb2" "$root/tmp/adcab-2.deb"
# dpkg_run NAME ARGS...: dpkg inside, asking nothing; its output is in $log.
dpkg_run() {
    local name=$1
    shift
    if inside env DEBIAN_FRONTEND=noninteractive "$@" </dev/null >"$log" 2>&1; then
        pass "$name"
    else
        sed 's/^/    | /' "$log"
        fail "$name" "exit code non-zero"
    fi
}
# shellcheck disable=SC2016 # dpkg-query's own ${Field} syntax
status() { inside dpkg-query -W -f='${Status} ${Version}' adcab 2>/dev/null || true; }

echo "== dpkg -i adcab $version-1 into a fresh $suite chroot (systemd not running)"
dpkg_run "dpkg -i exits 0" dpkg -i /tmp/adcab-1.deb
same "installed" "install ok installed $version-1" "$(status)"
IFS=: read -r _ _ uid gid _ home shell < <(inside getent passwd adcab || true) || true
if [ -n "${uid:-}" ] && [ "$uid" -lt 1000 ]; then pass "adcab is a system user (uid $uid)"; else fail "adcab is a system user" "uid '${uid:-}'"; fi
same "adcab's primary group is adcab" "adcab" "$(inside getent group "${gid:-x}" | cut -d: -f1)"
same "adcab's home is /var/lib/adcab" /var/lib/adcab "${home:-}"
same "adcab cannot log in" /usr/sbin/nologin "${shell:-}"
same "binary /usr/bin/adcab" "755 root:root" "$(mode_owner /usr/bin/adcab)"
same "adcab --version inside" "$("$binary" --version)" "$(inside /usr/bin/adcab --version 2>&1)"
check "unit installed as packaging/deb/adcab.service" cmp "$here/deb/adcab.service" "$root/usr/lib/systemd/system/adcab.service"
check "unit enabled for the next boot" test -L "$root/etc/systemd/system/multi-user.target.wants/adcab.service"
if inside systemd-analyze verify adcab.service >"$workdir/verify.log" 2>&1 && [ ! -s "$workdir/verify.log" ]; then
    pass "systemd-analyze verify the package's unit"
else
    sed 's/^/    | /' "$workdir/verify.log"
    fail "systemd-analyze verify the package's unit"
fi
check "the config is a conffile" sh -c "chroot '$root' dpkg-query -W -f='\${Conffiles}' adcab | grep -q '^ /etc/adcab/adcab.toml '"
check "config installed as packaged" cmp "$here/adcab.toml" "$root/etc/adcab/adcab.toml"
same "config mode" "640 root:adcab" "$(mode_owner /etc/adcab/adcab.toml)"
same "config dir mode" "750 root:adcab" "$(mode_owner /etc/adcab)"
same "state dir mode" "750 adcab:adcab" "$(mode_owner /var/lib/adcab)"
same "database created by adcab, private" "600 adcab:adcab" "$(mode_owner /var/lib/adcab/adcab.db)"
check "postinst ran adcab check" grep -q '^adcab: adcab check: {"config":"ok"' "$log"
check "postinst names the next step" grep -q "admin user add" "$log"
check "adcab check as adcab" as_adcab adcab --config /etc/adcab/adcab.toml check
created=$(as_adcab adcab --config /etc/adcab/adcab.toml admin user add --email ops@example.com 2>&1 || true)
same "admin user add as adcab" '{"id":1}' "$created"

echo "== upgrade to $version-2 with dpkg -i, the operator's config edited"
printf '\n# changed by the operator\n' >>"$root/etc/adcab/adcab.toml"
dpkg_run "dpkg -i of the newer package exits 0" dpkg -i /tmp/adcab-2.deb
same "upgraded" "install ok installed $version-2" "$(status)"
check "preinst said it backs up" grep -q "backing up /var/lib/adcab/adcab.db into /var/lib/adcab/backups/pre-upgrade-$version-1-" "$log"
backup=$(cd "$root" && find var/lib/adcab/backups -maxdepth 1 -name "pre-upgrade-$version-1-*" | head -n 1)
check "a backup named for the old version is left" test -n "$backup"
same "the backup belongs to adcab" "700 adcab:adcab" "$(mode_owner "/${backup:-none}")"
check "preinst reports the backup's rows (one person)" grep -q '^adcab: backed up [0-9]* bytes (people: 1, cabinets: 0, campaigns: 0) into /var/lib/adcab/backups/pre-upgrade-' "$log"
check "the backup is a sound database (adcab check on it)" \
    inside runuser -u adcab -- env ADCAB_STORAGE_PATH="/${backup:-none}/adcab.db" adcab --config /etc/adcab/adcab.toml check
check "the operator's config is kept" grep -q "changed by the operator" "$root/etc/adcab/adcab.toml"
same "config mode after the upgrade" "640 root:adcab" "$(mode_owner /etc/adcab/adcab.toml)"
check "the data is kept" sh -c "chroot '$root' runuser -u adcab -- adcab --config /etc/adcab/adcab.toml admin user list | grep -q ops@example.com"
same "one user adcab" 1 "$(grep -c '^adcab:' "$root/etc/passwd")"

echo "== an upgrade whose backup fails is refused"
mv "$root/var/lib/adcab/backups" "$root/var/lib/adcab/backups.kept"
touch "$root/var/lib/adcab/backups" # a file where the backup folder should be
if inside env DEBIAN_FRONTEND=noninteractive dpkg -i /tmp/adcab-2.deb </dev/null >"$log" 2>&1; then
    fail "dpkg -i fails when the backup fails"
else
    pass "dpkg -i fails when the backup fails"
fi
check "preinst says the backup failed" grep -q "the backup before the upgrade failed" "$log"
same "the installed package is unchanged" "install ok installed $version-2" "$(status)"
dpkg_run "SKIP_ADCAB_BACKUP=1 lets the upgrade go ahead without it" env SKIP_ADCAB_BACKUP=1 dpkg -i /tmp/adcab-2.deb
check "preinst says it skipped the backup" grep -q "SKIP_ADCAB_BACKUP is set: no backup" "$log"
rm "$root/var/lib/adcab/backups"
mv "$root/var/lib/adcab/backups.kept" "$root/var/lib/adcab/backups"

echo "== dpkg -r, dpkg -P, then dpkg -i again"
dpkg_run "dpkg -r exits 0" dpkg -r adcab
same "removed, config kept" "deinstall ok config-files $version-2" "$(status)"
check "binary removed" test ! -e "$root/usr/bin/adcab"
check "unit removed" test ! -e "$root/usr/lib/systemd/system/adcab.service"
check "config kept on remove" test -f "$root/etc/adcab/adcab.toml"
check "data kept on remove" test -f "$root/var/lib/adcab/adcab.db"
check "user kept on remove" inside getent passwd adcab
dpkg_run "dpkg -P exits 0, asking nothing" dpkg -P adcab
same "purged" "" "$(status | sed 's/^unknown ok not-installed.*//')"
check "config deleted on purge" test ! -e "$root/etc/adcab"
check "no owner overrides left" test -z "$(inside dpkg-statoverride --list | grep adcab || true)"
check "unit no longer enabled" test ! -e "$root/etc/systemd/system/multi-user.target.wants/adcab.service"
check "no mask left" test ! -e "$root/etc/systemd/system/adcab.service"
check "data kept on purge" test -f "$root/var/lib/adcab/adcab.db"
check "backups kept on purge" test -n "$(cd "$root" && find var/lib/adcab/backups -maxdepth 1 -name 'pre-upgrade-*')"
check "user kept on purge" inside getent passwd adcab
check "postrm says what it kept" grep -q "kept /var/lib/adcab" "$log"
dpkg_run "dpkg -i after the purge exits 0" dpkg -i /tmp/adcab-1.deb
check "it finds the kept data" sh -c "chroot '$root' runuser -u adcab -- adcab --config /etc/adcab/adcab.toml admin user list | grep -q ops@example.com"
same "config mode after reinstall" "640 root:adcab" "$(mode_owner /etc/adcab/adcab.toml)"

# --- the README's install blocks --------------------------------------------------------------

# Every ```sh install block of README.md runs here as written, from a copy of this repository
# at /root/adcab (packaging/, the binary under test as target/dist/adcab, the package beside
# them as build-packages.sh names it), with the substitutions a reader's machine makes: the
# build lines (`cargo build`, `packaging/build-packages.sh`) are already done (the binary and
# package above), and `sudo` is root (the chroot has no sudo; `sudo -u USER` is runuser). A
# block that installs (install.sh, `apt install`) starts on a fresh machine: they are two ways
# to the same install; the blocks after it run on the machine it left.
echo "== the README's install blocks, as written"
blocks=$workdir/readme-blocks
rm -rf "$blocks"
mkdir -p "$blocks"
awk -v dir="$blocks" '
    /^```/ {
        if (open) { open = 0; if (out != "") { close(out); out = "" }; next }
        open = 1
        if ($0 == "```sh install") { n++; out = sprintf("%s/%02d.sh", dir, n); printf "" > out }
        next
    }
    open && out != "" { print > out }
' "$repo/README.md"
count=$(find "$blocks" -name '*.sh' | wc -l)
if [ "$count" -ge 3 ]; then pass "README.md has its install blocks ($count)"; else fail "README.md has its install blocks" "found $count"; fi
fresh_machine() {
    umount "$root/proc"
    rm -rf --one-file-system "$root"
    cp -a "$base" "$root"
    mount -t proc proc "$root/proc"
    mkdir -p "$root/root/adcab/target/dist"
    cp -a "$here" "$root/root/adcab/packaging"
    cp "$binary" "$root/root/adcab/target/dist/adcab"
    cp "$deb1" "$root/root/adcab/"
}
for block in "$blocks"/*.sh; do
    name="README install block $(basename "$block" .sh): $(grep -Ev '^(cargo build|packaging/build-packages)' "$block" | head -n 1 | cut -c 1-60)"
    if grep -Eq '(^|[[:space:]])(packaging/install\.sh|apt install)' "$block"; then fresh_machine; fi
    {
        echo 'set -euo pipefail'
        # shellcheck disable=SC2016 # written into the script, expanded there
        echo 'sudo() { if [ "${1:-}" = -u ]; then local user=$2; shift 2; runuser -u "$user" -- "$@"; else "$@"; fi; }'
        echo 'cd /root/adcab'
        sed -E 's#^(cargo build|packaging/build-packages\.sh)#: built beforehand: \1#' "$block"
    } >"$root/root/readme-block.sh"
    if inside env DEBIAN_FRONTEND=noninteractive bash /root/readme-block.sh </dev/null >"$log" 2>&1; then
        pass "$name"
    else
        sed 's/^/    | /' "$log"
        fail "$name" "exit code non-zero"
    fi
    if grep -q 'apt install' "$block"; then
        same "the README's apt install leaves the package installed" "install ok installed $version-1" "$(status)"
    fi
done
check "after the README's blocks, adcab check passes as adcab" as_adcab adcab --config /etc/adcab/adcab.toml check
check "after the README's blocks, the person they added is there" \
    sh -c "chroot '$root' runuser -u adcab -- adcab --config /etc/adcab/adcab.toml admin user list | grep -q you@example.com"

if [ "$boot" -eq 0 ]; then
    finish
fi

# --- booted: the same system run by systemd ---------------------------------------------------

echo "== booted: a fresh $suite system run by systemd (systemd-nspawn), install.sh starts adcab"
if ! command -v systemd-nspawn >/dev/null && can_apt; then
    apt-get install -y -qq systemd-container >/dev/null 2>&1 || true
fi
if ! command -v systemd-nspawn >/dev/null; then
    fail "boot with systemd-nspawn" "systemd-nspawn is not available (apt-get install systemd-container)"
    finish
fi
cp -a "$base" "$broot"
mkdir -p "$broot$release"
cp "$here/install.sh" "$here/uninstall.sh" "$here/adcab.service" "$broot$release/"
cp "$config" "$broot$release/adcab.toml"
cp "$binary" "$broot$release/adcab"
# No system bus is needed on the host: the container is neither registered nor given a scope.
systemd-nspawn -D "$broot" -M "adcab-test-$$" --register=no --keep-unit -b --console=pipe \
    >"$workdir/nspawn.log" 2>&1 &
nspawn=$!
init=""
for _ in $(seq 60); do
    init=$(pgrep -P "$nspawn" -x systemd | head -n 1 || true)
    [ -n "$init" ] && break
    sleep 1
done
booted() {
    nsenter -t "$init" -a /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        LANG=C.UTF-8 "$@"
}
system=""
if [ -n "$init" ]; then
    system=$(booted timeout 90 systemctl is-system-running --wait 2>&1 || true)
fi
case $system in
    running | degraded) pass "the container boots systemd ($system)" ;;
    *)
        tail -n 20 "$workdir/nspawn.log"
        fail "the container boots systemd" "'$system'"
        finish
        ;;
esac
journal() { booted journalctl -u adcab -n 30 --no-pager | sed 's/^/    | /'; }
# property NAME: the unit's property, as systemctl show tells it.
property() { booted systemctl show -p "$1" --value adcab 2>/dev/null || true; }
# http PORT PATH: the status line of a GET on loopback inside the container (empty when no
# answer comes within 10 s).
http() {
    booted timeout 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1 && printf 'GET $2 HTTP/1.1\r\nHost: adcab\r\nConnection: close\r\n\r\n' >&3 && head -n 1 <&3 | tr -d '\r'" 2>/dev/null || true
}

# Type=notify: `systemctl start` returns once adcab sent READY=1 (a binary that never sends it
# hangs until TimeoutStartSec; the timeout here makes that a failure).
if booted timeout 180 bash "$release/install.sh" >"$log" 2>&1; then
    pass "install.sh enables and starts adcab (start returned after READY=1)"
else
    sed 's/^/    | /' "$log"
    journal
    fail "install.sh enables and starts adcab" "exit code non-zero (no READY=1 within 180 s?)"
fi
same "adcab is active" active "$(property ActiveState)"
same "adcab is enabled" enabled "$(booted systemctl is-enabled adcab 2>/dev/null || true)"
same "Type=notify" notify "$(property Type)"
same "NotifyAccess=main" main "$(property NotifyAccess)"
same "WatchdogSec=60s" 1min "$(property WatchdogUSec)"
same "LimitNOFILE=65536" 65536 "$(property LimitNOFILE)"
pid=$(property MainPID)
status=$(booted cat "/proc/$pid/status" 2>/dev/null || true)
same "runs as adcab" "adcab" "$(booted stat -c %U "/proc/$pid" 2>&1 || true)"
check "runs with seccomp, no new privileges, no capabilities" \
    sh -c "printf '%s' \"\$1\" | grep -q '^Seccomp:[[:space:]]*2' && printf '%s' \"\$1\" | grep -q '^NoNewPrivs:[[:space:]]*1' && printf '%s' \"\$1\" | grep -q '^CapBnd:[[:space:]]*0000000000000000'" _ "$status"
same "GET /readyz" "HTTP/1.1 200 OK" "$(http 8080 /readyz)"
if grep -q '^listen = "127.0.0.1:9464"' "$config"; then
    same "GET /metrics on its own listener" "HTTP/1.1 200 OK" "$(http 9464 /metrics)"
    same "GET /metrics on the main listener" "HTTP/1.1 404 Not Found" "$(http 8080 /metrics)"
fi

printf '\n' >>"$broot$release/adcab" # a "new release" that still runs
if booted timeout 180 bash "$release/install.sh" >"$log" 2>&1; then
    pass "install.sh upgrades the running service"
else
    sed 's/^/    | /' "$log"
    journal
    fail "install.sh upgrades the running service"
fi
check "the upgrade restarted adcab" grep -q "restarting adcab" "$log"
same "adcab is active after the upgrade" active "$(property ActiveState)"
check "a new process runs the new binary" test "$(property MainPID)" != "$pid"
same "no restart counted as a failure" 0 "$(property NRestarts)"

# The watchdog: a process that stops pinging (frozen here) is killed and started again.
pid=$(property MainPID)
booted bash -c "kill -STOP $pid"
restarts=0
for _ in $(seq 150); do
    restarts=$(property NRestarts)
    [ "$restarts" = 1 ] && [ "$(property ActiveState)" = active ] && break
    sleep 1
done
if [ "$restarts" = 1 ] && booted journalctl -u adcab --no-pager | grep -q "Watchdog timeout"; then
    pass "the watchdog restarts a process that stopped answering"
else
    journal
    fail "the watchdog restarts a process that stopped answering" "NRestarts=$restarts"
fi
same "GET /readyz after the watchdog restart" "HTTP/1.1 200 OK" "$(http 8080 /readyz)"

booted systemctl stop adcab || true
same "a stop ends with success (SIGTERM, exit 0)" "success 0" "$(property Result) $(property ExecMainStatus)"

echo "== booted: the Debian package in place of install.sh's install: started, upgraded, removed"
# Beside install.sh (the booted system's /tmp is a tmpfs of its own).
cp "$deb1" "$broot$release/adcab-1.deb"
cp "$deb2" "$broot$release/adcab-2.deb"
booted bash "$release/uninstall.sh" --purge >"$log" 2>&1 || true
# booted_dpkg NAME ARGS...: dpkg inside the running system, asking nothing.
booted_dpkg() {
    local name=$1
    shift
    if booted env DEBIAN_FRONTEND=noninteractive timeout 180 dpkg "$@" </dev/null >"$log" 2>&1; then
        pass "$name"
    else
        sed 's/^/    | /' "$log"
        journal
        fail "$name" "exit code non-zero"
    fi
}
booted_dpkg "dpkg -i starts adcab" -i "$release/adcab-1.deb"
same "the package's adcab is active" active "$(property ActiveState)"
same "the package's adcab is enabled" enabled "$(booted systemctl is-enabled adcab 2>/dev/null || true)"
check "it runs /usr/bin/adcab" sh -c "printf '%s' \"\$1\" | grep -q 'path=/usr/bin/adcab '" _ "$(property ExecStart)"
same "GET /readyz from the package's adcab" "HTTP/1.1 200 OK" "$(http 8080 /readyz)"
pid=$(property MainPID)
booted_dpkg "dpkg -i of the newer package upgrades the running service" -i "$release/adcab-2.deb"
check "the upgrade took a backup first" grep -q "^adcab: backed up .* into /var/lib/adcab/backups/pre-upgrade-" "$log"
same "adcab is active after the package upgrade" active "$(property ActiveState)"
check "the package upgrade restarted adcab" test "$(property MainPID)" != "$pid"
same "GET /readyz after the package upgrade" "HTTP/1.1 200 OK" "$(http 8080 /readyz)"
booted_dpkg "dpkg -r stops adcab" -r adcab
same "adcab is stopped after the removal" inactive "$(property ActiveState)"
booted_dpkg "dpkg -P exits 0" -P adcab
check "the data outlives the purge" booted test -f /var/lib/adcab/adcab.db

finish
