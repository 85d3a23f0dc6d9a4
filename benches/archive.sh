#!/usr/bin/env bash
# An archive run: a folder of a few thousand real files (the corpus copied COPIES times,
# default 80, with one file damaged) verified, summarised and converted in one command
# each, on one core (-j 1) and on every core (-j 0), timed with /usr/bin/time.
#
#   benches/archive.sh [WORKDIR] [COPIES]
#
# Checks what a script relies on, and fails if any does not hold:
# - every command exits with status 1 (the damaged file) and reports every file;
# - `--json` prints one JSON object per line, each with a path and a status, and the
#   damaged file is the only one that failed;
# - the -j 0 run gives the same lines as the -j 1 run.
# Prints a Markdown table (docs/benchmarks.md, "An archive run").
set -euo pipefail
cd "$(dirname "$0")/.."

work="${1:-${TMPDIR:-/tmp}/meshcodec-archive}"
copies="${2:-80}"
corpus="${MESHCODEC_CORPUS:-$(cd .. && pwd)/shared/corpus}"
test -f "$corpus/MANIFEST.tsv" || { echo "corpus missing at $corpus (set MESHCODEC_CORPUS)" >&2; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time)" >&2; exit 1; }

cargo build --quiet --release --bin meshcodec
bin="${CARGO_TARGET_DIR:-$PWD/target}/release/meshcodec"

archive="$work/archive"
rm -rf "$archive" "$work/out"
mkdir -p "$archive"
for i in $(seq 1 "$copies"); do
  mkdir -p "$archive/$i" && cp -r "$corpus"/. "$archive/$i/" && rm -f "$archive/$i/MANIFEST.tsv"
done
# One damaged file: a FileMesh cut in half.
victim=$(grep -l -r -m1 "^version [45]" "$archive/1/roblox" | sort | head -n 1)
head -c "$(( $(stat -c %s "$victim") / 2 ))" "$victim" > "$victim.cut" && mv "$victim.cut" "$victim"
files=$(find "$archive" -type f | wc -l)
bytes=$(du -sb "$archive" | cut -f1)
echo "archive: $files files, $bytes bytes, damaged: ${victim#"$archive"/}" >&2

roblox=$(find "$archive" -path '*/roblox/*' -type f | wc -l)

# run NAME JOBS EXPECTED ARGS…: runs one command, checks its JSON lines (EXPECTED files
# reported), prints a table row.
run() {
  local name="$1" jobs="$2" expected="$3"
  shift 3
  local out="$work/$name.j$jobs.jsonl"
  local status=0
  /usr/bin/time -f "%e %M %P" -o "$work/time" "$bin" "$@" -j "$jobs" --json >"$out" 2>"$work/err" || status=$?
  # GNU time puts "Command exited with non-zero status" first.
  read -r wall kb cpu < <(tail -n 1 "$work/time")
  python3 - "$out" "$status" "$expected" "${victim#"$archive"/}" <<'EOF'
import json, sys
path, status, files, victim = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rows = [json.loads(l) for l in open(path) if l.strip()]
assert status == 1, f"exit status {status}, expected 1 (one damaged file)"
assert all("path" in r and "status" in r for r in rows), "a line without path or status"
failed = [r["path"] for r in rows if r["status"] not in ("ok", "skipped")]
assert len(failed) == 1 and failed[0].endswith(victim), f"failed: {failed[:5]}"
assert len(rows) == files, f"{len(rows)} lines for {files} files"
EOF
  awk -v n="$name" -v j="$jobs" -v w="$wall" -v c="$cpu" -v kb="$kb" \
    'BEGIN { printf "| %s | %s | %s s | %s | %.0f MB |\n", n, j, w, c, kb * 1024 / 1e6 }'
}

echo "| command | -j | wall | CPU | peak RSS |"
echo "|---|---|---|---|---|"
for jobs in 1 0; do
  run verify "$jobs" "$files" verify "$archive"
  run info "$jobs" "$files" info "$archive"
  rm -rf "$work/out"
  # Every FileMesh (1.00–7.00) to 4.00.
  run "convert --to 4.00" "$jobs" "$roblox" convert --out-dir "$work/out" --to 4.00 --allow-lossy --glob '*/roblox/*' "$archive"
done
for name in verify info; do
  cmp -s "$work/$name.j1.jsonl" "$work/$name.j0.jsonl" || { echo "$name: -j 0 and -j 1 differ" >&2; exit 1; }
done
echo "JSON lines checked: status 1, one failure (the damaged file), the same lines on every core count" >&2
