#!/usr/bin/env bash
# Peak memory (maximum resident set size, from /usr/bin/time -v) and wall time of each
# meshcodec command on big files, as a multiple of the input's size.
#
#   benches/peak_memory.sh [WORKDIR]
#
# The inputs are made here: the benchmarks' FileMesh 4.01 and 5.00 files (1,000,000
# vertices, 2,000,000 faces, 72 MB; examples/big_files.rs), UNIGINE ms13/ms14, STF, Draco
# 7.00 and text 1.00 files made from the 4.01 file by `meshcodec convert`, and a folder of corpus
# files for the batch commands. Prints a Markdown table (docs/benchmarks.md, "Peak memory").
set -euo pipefail
cd "$(dirname "$0")/.."

work="${1:-${TMPDIR:-/tmp}/meshcodec-peak}"
mkdir -p "$work"
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time)" >&2; exit 1; }

cargo build --quiet --release --bin meshcodec --example big_files --example draco_encoder_memory
target="${CARGO_TARGET_DIR:-$PWD/target}"
bin="$target/release/meshcodec"
[ -f "$work/big-4.01.mesh" ] || "$target"/release/examples/big_files "$work" >/dev/null

size() { stat -c %s "$1"; }

# measure LABEL INPUT_BYTES COMMAND…: one table row.
measure() {
  local label="$1" bytes="$2"
  shift 2
  local out
  out=$(/usr/bin/time -v "$@" 2>&1 >/dev/null | grep -E "Maximum resident|Elapsed|Exit status" || true)
  local kb wall status
  kb=$(echo "$out" | awk -F': ' '/Maximum resident/ {print $2}')
  wall=$(echo "$out" | awk -F': ' '/Elapsed/ {print $2}')
  status=$(echo "$out" | awk -F': ' '/Exit status/ {print $2}')
  awk -v l="$label" -v kb="$kb" -v b="$bytes" -v w="$wall" -v s="$status" 'BEGIN {
    printf "| %s | %.1f MB | %.1f MB | %.2f× | %s | %s |\n", l, b / 1e6, kb * 1024 / 1e6, kb * 1024 / b, w, s }'
}

f4="$work/big-4.01.mesh"
f5="$work/big-5.00.mesh"
u="$work/big.ms13.mesh"
o="$work/out"
rm -rf "$o" && mkdir -p "$o"

echo "| command | input | peak RSS | peak / input | wall | status |"
echo "|---|---|---|---|---|---|"
measure "info (4.01)" "$(size "$f4")" "$bin" info "$f4"
measure "info --json (5.00)" "$(size "$f5")" "$bin" info --json "$f5"
measure "verify (4.01)" "$(size "$f4")" "$bin" verify "$f4"
measure "verify (5.00)" "$(size "$f5")" "$bin" verify "$f5"
measure "convert, same version (4.01)" "$(size "$f4")" "$bin" convert "$f4" "$o/same.mesh"
measure "convert --to 2.00 (4.01)" "$(size "$f4")" "$bin" convert "$f4" "$o/v2.mesh" --to 2.00 --allow-lossy
measure "convert --to 4.01 (5.00)" "$(size "$f5")" "$bin" convert "$f5" "$o/v4.mesh" --to 4.01 --allow-lossy
measure "convert --to 6.00 (4.01)" "$(size "$f4")" "$bin" convert "$f4" "$o/v6.mesh" --to 6.00
measure "convert --to 7.00 (4.01)" "$(size "$f4")" "$bin" convert "$f4" "$o/v7.mesh" --to 7.00
# To other formats, through the format-neutral scene.
measure "convert --to unigine-mesh:ms14 (4.01)" "$(size "$f4")" "$bin" convert "$f4" "$o/x.ms14.mesh" --to unigine-mesh:ms14 --allow-lossy
measure "convert --to stf (4.01)" "$(size "$f4")" "$bin" convert "$f4" "$o/x.stf" --to stf --allow-lossy
# A Draco 7.00 file (normals quantized), and the 4.01 file made from it, whose normals lie
# on Draco's grid: the conversions that encode and decode Draco.
d7="$work/big-draco.mesh"
d4="$work/big-draco-4.01.mesh"
[ -f "$d7" ] || "$bin" convert "$f4" "$d7" --to 7.00 --coremesh draco --allow-lossy 2>/dev/null
[ -f "$d4" ] || "$bin" convert "$d7" "$d4" --to 4.01 2>/dev/null
measure "info (7.00 Draco)" "$(size "$d7")" "$bin" info "$d7"
measure "verify (7.00 Draco)" "$(size "$d7")" "$bin" verify "$d7"
measure "convert --to 4.01 (7.00 Draco)" "$(size "$d7")" "$bin" convert "$d7" "$o/d4.mesh" --to 4.01
measure "export .glb (7.00 Draco)" "$(size "$d7")" "$bin" export "$d7" "$o/d.glb"
measure "convert --to unigine-mesh:ms14 (7.00 Draco)" "$(size "$d7")" "$bin" convert "$d7" "$o/d.ms14.mesh" --to unigine-mesh:ms14 --allow-lossy
measure "convert --to 7.00 (4.01 from Draco)" "$(size "$d4")" "$bin" convert "$d4" "$o/d7.mesh" --to 7.00
# What draco-core's encoder needs above the arrays it encodes, holding nothing else: the
# floor under any conversion that encodes Draco (stderr, not a table row).
"$target"/release/examples/draco_encoder_memory "$f4" >&2
# Text (1.00): six times the binary file's size, printed into the output in pieces and
# read in pieces.
t="$work/big-1.00.mesh"
measure "convert --to 1.00 (4.01)" "$(size "$f4")" "$bin" convert "$f4" "$t" --to 1.00 --allow-lossy
measure "info (1.00)" "$(size "$t")" "$bin" info "$t"
measure "verify (1.00)" "$(size "$t")" "$bin" verify "$t"
measure "convert --to 4.01 (1.00)" "$(size "$t")" "$bin" convert "$t" "$o/from-text.mesh" --to 4.01
measure "export .glb (4.01)" "$(size "$f4")" "$bin" export "$f4" "$o/big.glb"
measure "export .gltf (4.01)" "$(size "$f4")" "$bin" export "$f4" "$o/big.gltf"
measure "export .obj (4.01)" "$(size "$f4")" "$bin" export "$f4" "$o/big.obj"
measure "render (4.01)" "$(size "$f4")" "$bin" render "$f4" "$o/big.png"
# UNIGINE and STF files made from the 4.01 file.
[ -f "$u" ] || "$bin" convert "$f4" "$u" --to unigine-mesh:ms13 --allow-lossy 2>/dev/null
u14="$work/big.ms14.mesh"
[ -f "$u14" ] || "$bin" convert "$f4" "$u14" --to unigine-mesh:ms14 --allow-lossy 2>/dev/null
s="$work/big.stf"
[ -f "$s" ] || "$bin" convert "$f4" "$s" --to stf --allow-lossy 2>/dev/null
measure "info (ms13)" "$(size "$u")" "$bin" info "$u"
measure "verify (ms13)" "$(size "$u")" "$bin" verify "$u"
measure "convert --to ms14 (ms13)" "$(size "$u")" "$bin" convert "$u" "$o/big.ms14.mesh" --to ms14
measure "convert --to filemesh:4.01 (ms13)" "$(size "$u")" "$bin" convert "$u" "$o/u.mesh" --to filemesh:4.01 --allow-lossy
measure "info (ms14)" "$(size "$u14")" "$bin" info "$u14"
measure "verify (ms14)" "$(size "$u14")" "$bin" verify "$u14"
measure "convert --to filemesh:4.01 (ms14)" "$(size "$u14")" "$bin" convert "$u14" "$o/u14.mesh" --to filemesh:4.01 --allow-lossy
measure "export .glb (ms14)" "$(size "$u14")" "$bin" export "$u14" "$o/u14.glb"
measure "info (STF)" "$(size "$s")" "$bin" info "$s"
measure "verify (STF)" "$(size "$s")" "$bin" verify "$s"
measure "convert --to filemesh:4.01 (STF)" "$(size "$s")" "$bin" convert "$s" "$o/s.mesh" --to filemesh:4.01 --allow-lossy
measure "convert --to stf (STF)" "$(size "$s")" "$bin" convert "$s" "$o/s.stf" --to stf

corpus="${MESHCODEC_CORPUS:-$(cd .. && pwd)/shared/corpus}"
if [ -d "$corpus" ]; then
  batch="$work/batch"
  if [ ! -d "$batch" ]; then
    for i in $(seq 1 12); do mkdir -p "$batch/$i" && cp -r "$corpus"/. "$batch/$i/"; done
  fi
  total=$(du -sb "$batch" | cut -f1)
  n=$(find "$batch" -type f | wc -l)
  measure "verify DIR ($n files, -j1)" "$total" "$bin" verify -j 1 "$batch"
  measure "verify DIR ($n files, -j2)" "$total" "$bin" verify -j 2 "$batch"
  measure "convert --out-dir --to 4.00 ($n files)" "$total" "$bin" convert --out-dir "$o/batch" --to 4.00 --allow-lossy --ext mesh --glob 'v*' "$batch"
fi
