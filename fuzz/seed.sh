#!/usr/bin/env bash
# Fills fuzz/corpus/TARGET/ with the project's fixtures (and the shared corpus when it is
# beside the repository) as seeds. The seeds are not committed: run this first.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${MESHCODEC_CORPUS:-../shared/corpus}"
seed() { # target, then files
  local t="$1"; shift
  mkdir -p "fuzz/corpus/$t"
  for f in "$@"; do [ -f "$f" ] && cp "$f" "fuzz/corpus/$t/$(basename "$f")"; done
  return 0
}
shopt -s nullglob
seed filemesh roundtrip-fixtures/filemesh/*.mesh roundtrip-fixtures/chunked/*.mesh \
  roundtrip-fixtures/text/*.mesh roundtrip-fixtures/draco/*.mesh
seed csgphs roundtrip-fixtures/csgphs/*.bin
seed unigine roundtrip-fixtures/unigine/*.mesh roundtrip-fixtures/unigine/*.anim
seed stf roundtrip-fixtures/stf/*.stf
seed csgmdl roundtrip-fixtures/csgmdl/*.bin
seed draco roundtrip-fixtures/draco/*.drc roundtrip-fixtures/chunked/v7.00-draco-*.mesh
if [ -d "$corpus" ]; then
  seed filemesh "$corpus"/roblox/*.mesh
  seed draco "$corpus"/roblox/v7.00-*.mesh
  seed csgphs "$corpus"/csg/*.bin
  seed unigine "$corpus"/unigine/*
  seed stf "$corpus"/stf/*
  seed csgmdl "$corpus"/csgmdl/*
fi
# glTF and OBJ seeds: the exports of a few fixtures.
mkdir -p fuzz/corpus/gltf fuzz/corpus/obj
bin=(cargo run --quiet --release --)
for f in roundtrip-fixtures/filemesh/v4.00-bones.mesh roundtrip-fixtures/unigine/ms12-morph.mesh \
  roundtrip-fixtures/csgphs/csgphs7.bin; do
  n="$(basename "$f")"
  "${bin[@]}" export "$f" "fuzz/corpus/gltf/$n.gltf" 2>/dev/null
  "${bin[@]}" export "$f" "fuzz/corpus/gltf/$n.glb" 2>/dev/null
  "${bin[@]}" export "$f" "fuzz/corpus/obj/$n.obj" 2>/dev/null
done
