#!/usr/bin/env bash
# Installs nostr-rs-relay 0.8.12, an independent relay implementation that the end-to-end tests
# (tests/net_relay.rs) and the relay bench (benches/relay.rs) run against.
#
# The binary goes to a cache outside the repository and is reused when present:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/tolerance/bin/nostr-rs-relay
# Set TOLERANCE_NOSTR_RS_RELAY to use a binary elsewhere instead (the tests read that variable).
#
# Why not `cargo install --locked nostr-rs-relay`: its lock file pins a `time` crate that no longer
# compiles on current toolchains. We take the published crate source from crates.io through an
# ordinary `cargo fetch`, copy it out of the registry, `cargo update -p time@0.3.25` (the 0.3 line;
# 0.1 is also in its tree), and build it without --locked.
# It needs protoc (protobuf-compiler) for its gRPC definitions. A build takes ~5 minutes on 2 cores.
#
# Environment: NICE=1 builds at the lowest CPU priority with one job (to share the machine).
set -euo pipefail

VERSION=0.8.12
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/tolerance"
BIN_DIR="$CACHE/bin"
BIN="$BIN_DIR/nostr-rs-relay"

if [[ -x "$BIN" ]] && "$BIN" --version 2>/dev/null | grep -q "$VERSION"; then
    echo "nostr-rs-relay $VERSION already installed at $BIN"
    exit 0
fi

if ! command -v protoc >/dev/null 2>&1; then
    if [[ $(id -u) -eq 0 ]]; then
        apt-get update -qq
        apt-get install -y -qq protobuf-compiler
    else
        echo "protoc not found: install protobuf-compiler (needs root)" >&2
        exit 1
    fi
fi

WORK="$CACHE/build-nostr-rs-relay"
mkdir -p "$WORK" "$BIN_DIR"

# 1. A throwaway project whose only dependency is the relay crate: `cargo fetch` puts the crate
#    source into the registry cache without building anything.
FETCHER="$WORK/fetcher"
mkdir -p "$FETCHER/src"
cat >"$FETCHER/Cargo.toml" <<EOF
[package]
name = "fetch-nostr-rs-relay"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
nostr-rs-relay = "=$VERSION"
EOF
echo "fn main() {}" >"$FETCHER/src/main.rs"
(cd "$FETCHER" && cargo fetch --quiet)

REGISTRY_SRC=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/nostr-rs-relay-"$VERSION" | head -n 1)
if [[ -z "$REGISTRY_SRC" || ! -d "$REGISTRY_SRC" ]]; then
    echo "nostr-rs-relay-$VERSION source not found in the cargo registry after cargo fetch" >&2
    exit 1
fi

# 2. Copy the source out of the (read-only by convention) registry and refresh `time`.
SRC="$WORK/nostr-rs-relay-$VERSION"
rm -rf "$SRC"
cp -r "$REGISTRY_SRC" "$SRC"
cd "$SRC"
cargo update --quiet -p time@0.3.25

# 3. Build. Its own target dir lives in the cache, so the repository's target/ is untouched.
if [[ "${NICE:-0}" == 1 ]]; then
    export CARGO_BUILD_JOBS=1
    nice -n 19 cargo build --release --target-dir "$WORK/target"
else
    cargo build --release --target-dir "$WORK/target"
fi

install -m 0755 "$WORK/target/release/nostr-rs-relay" "$BIN"
# The build tree is ~1.3 GB; only the binary is kept.
cd "$CACHE"
rm -rf "$WORK"
echo "installed $("$BIN" --version 2>/dev/null || echo nostr-rs-relay) at $BIN"
