#!/usr/bin/env bash
# Builds the browser page into web/dist: the core for wasm32 (web/src), its JS glue made by
# wasm-bindgen-cli of the same version as the wasm-bindgen crate, and the static files.
# `tolerance web` serves the result; so can any static file server.
set -euo pipefail
cd "$(dirname "$0")/.."

want=$(sed -n 's/^wasm-bindgen = "=\(.*\)"$/\1/p' web/Cargo.toml)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [[ "$have" != "$want" ]]; then
    echo "web/build.sh: needs wasm-bindgen-cli $want (have: ${have:-none}):" >&2
    echo "  cargo install wasm-bindgen-cli --version $want --no-default-features" >&2
    exit 1
fi
rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || true

cargo build -p tolerance-web --release --target wasm32-unknown-unknown
rm -rf web/dist
mkdir -p web/dist
wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section --out-dir web/dist/pkg \
    target/wasm32-unknown-unknown/release/tolerance_web.wasm
cp web/static/* web/dist/
echo "web/build.sh: the page is in web/dist ($(du -sh web/dist | cut -f1)); serve it with: tolerance web"
