#!/usr/bin/env bash
# Fetch the official C2SP age test vectors (npm package cctv-age) into a directory,
# one file per vector, named as in C2SP/CCTV age/testdata.
#
#   tests/fetch_age_vectors.sh [DEST]        (default DEST: tests/.age-vectors)
#
# Idempotent: does nothing when DEST already holds this pinned version (DEST/VERSION).
# Needs node + npm and the npm registry. The expected-differences list in
# tests/test_seal.py is written against this exact version; bump both together.
set -euo pipefail

PKG_VERSION="0.2.0"
PKG="cctv-age@${PKG_VERSION}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DEST="${1:-$HERE/.age-vectors}"

if [[ -f "$DEST/VERSION" && "$(cat "$DEST/VERSION")" == "$PKG" ]]; then
    echo "age vectors: $PKG already in $DEST"
    exit 0
fi

for tool in node npm; do
    command -v "$tool" >/dev/null || { echo "age vectors: '$tool' not found (install nodejs/npm)" >&2; exit 1; }
done

CACHE="${SEALBOARD_NPM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sealboard/cctv-age-$PKG_VERSION}"
mkdir -p "$CACHE"
if [[ ! -f "$CACHE/node_modules/cctv-age/index.js" ]]; then
    npm install --prefix "$CACHE" --no-audit --no-fund --no-save --ignore-scripts \
        --loglevel=error "$PKG" >&2
fi

mkdir -p "$(dirname "$DEST")"
TMP="$(mktemp -d "$(dirname "$DEST")/.age-vectors.tmp.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

# The package's only content is an ES module exporting {vector name: Uint8Array}.
node --input-type=module - "$CACHE/node_modules/cctv-age/index.js" "$TMP" <<'JS'
import { pathToFileURL } from "node:url";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
const [modPath, outDir] = process.argv.slice(2);
const mod = await import(pathToFileURL(modPath).href);
let n = 0;
for (const [name, data] of Object.entries(mod)) {
  if (!(data instanceof Uint8Array) || !/^[a-z0-9_]+$/.test(name)) continue;
  writeFileSync(join(outDir, name), data);
  n++;
}
if (n < 100) { console.error(`age vectors: only ${n} vectors exported`); process.exit(1); }
console.error(`age vectors: extracted ${n} vectors`);
JS

chmod 755 "$TMP"
echo "$PKG" > "$TMP/VERSION"
rm -rf "$DEST"
mv "$TMP" "$DEST"
trap - EXIT
echo "age vectors: $PKG -> $DEST"
