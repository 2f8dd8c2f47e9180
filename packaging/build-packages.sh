#!/usr/bin/env bash
# Builds adcab's release artefacts from this repository: the static (musl) binary, which runs
# on any x86_64 Linux, and the Debian package made from that same binary by `cargo deb`
# ([package.metadata.deb] in Cargo.toml, maintainer scripts in packaging/deb/). One release
# build serves both, and a package holding a static binary installs on every Debian (11+) and
# Ubuntu (22.04+), whatever their glibc.
#
#   packaging/build-packages.sh [--glibc | --binary PATH] [--deb-version VERSION] [--fast]
#                               [--out DIR]
#
#   (nothing)          cargo build --profile dist --locked --target x86_64-unknown-linux-musl,
#                      then the .deb from it; both are written to DIR:
#                        adcab-<version>-x86_64-linux-musl   the static binary
#                        adcab_<version>-1_amd64.deb         the package
#                      Needs the musl target and musl-gcc: rustup target add
#                      x86_64-unknown-linux-musl; apt-get install musl-tools.
#   --glibc            the .deb from a glibc build (cargo build --profile dist) instead, with
#                      no static binary; it then needs the building machine's glibc or newer.
#   --binary PATH      no build: the .deb holds PATH (stripped of debug symbols); the install
#                      test packages the binary its tests built this way.
#   --deb-version V    the package's version (default: Cargo.toml's version, revision 1).
#   --fast             lighter compression: a bigger .deb made sooner (the install test).
#   --out DIR          where the artefacts go (default target/packages).
#
# Needs cargo-deb: cargo install cargo-deb --version 3.8.0 --locked. Prints the paths made.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
musl=x86_64-unknown-linux-musl
mode=musl
binary=""
deb_version=""
fast=0
out=$repo/target/packages

die() {
    printf 'build-packages.sh: %s\n' "$*" >&2
    exit 1
}
say() { printf 'build-packages.sh: %s\n' "$*"; }

while [ $# -gt 0 ]; do
    case $1 in
        --binary | --deb-version | --out)
            [ $# -ge 2 ] || die "$1 needs a value (--help tells the options)"
            case $1 in
                --binary) binary=$2 mode=binary ;;
                --deb-version) deb_version=$2 ;;
                --out) out=$2 ;;
            esac
            shift 2
            ;;
        --glibc)
            mode=glibc
            shift
            ;;
        --fast)
            fast=1
            shift
            ;;
        -h | --help)
            sed -n '2,/^# Needs cargo-deb/p' "$0" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *) die "unknown option '$1' (--help tells the options)" ;;
    esac
done
if [ "$mode" = binary ] && [ -z "$binary" ]; then die "--binary needs a path"; fi

cargo deb --version >/dev/null 2>&1 ||
    die "cargo-deb is not installed: cargo install cargo-deb --version 3.8.0 --locked"
version=$(sed -n 's/^version = "\([^"]*\)"$/\1/p' "$repo/Cargo.toml" | head -n 1)
[ -n "$version" ] || die "cannot read the version from $repo/Cargo.toml"
mkdir -p "$out"
out=$(cd "$out" && pwd)

deb_flags=(--no-build --output "$out")
if [ -n "$deb_version" ]; then deb_flags+=(--deb-version "$deb_version"); fi
if [ "$fast" -eq 1 ]; then deb_flags+=(--fast); fi

cd "$repo"
case $mode in
    musl)
        rustup target list --installed 2>/dev/null | grep -qx "$musl" ||
            die "the $musl target is missing: rustup target add $musl"
        command -v musl-gcc >/dev/null ||
            die "musl-gcc is missing (it compiles SQLite's and ring's C): sudo apt-get install musl-tools"
        say "cargo build --profile dist --locked --target $musl"
        cargo build --profile dist --locked --target "$musl"
        built=$repo/target/$musl/dist/adcab
        # A dynamic executable names its loader (PT_INTERP); a static one, PIE or not, has none.
        if command -v readelf >/dev/null && readelf -l "$built" | grep -q 'program interpreter'; then
            die "$built is linked dynamically (readelf -l names a program interpreter)"
        fi
        cp "$built" "$out/adcab-$version-x86_64-linux-musl"
        say "static binary: $out/adcab-$version-x86_64-linux-musl"
        deb=$(cargo deb --target "$musl" --profile dist "${deb_flags[@]}" | tail -n 1)
        ;;
    glibc)
        say "cargo build --profile dist --locked"
        cargo build --profile dist --locked
        deb=$(cargo deb --profile dist "${deb_flags[@]}" | tail -n 1)
        ;;
    binary)
        [ -f "$binary" ] || die "there is no file at $binary"
        shown=$("$binary" --version 2>&1) || die "$binary does not run here: $shown"
        case $shown in
            adcab\ *) ;;
            *) die "$binary is not adcab: --version printed '$shown'" ;;
        esac
        # cargo deb takes the binary from <target dir>/release/adcab: a scratch target dir
        # holding only this one, so nothing is compiled and no other build is touched.
        stage=$(mktemp -d)
        trap 'rm -rf "$stage"' EXIT
        mkdir "$stage/release"
        cp "$binary" "$stage/release/adcab"
        deb=$(CARGO_TARGET_DIR=$stage cargo deb "${deb_flags[@]}" | tail -n 1)
        ;;
esac
[ -f "$deb" ] || die "cargo deb did not say where the package is (it printed '$deb')"
say "Debian package: $deb"
