#!/usr/bin/env bash
# Dumps `tilec ir --json`, `tilec check` and `tilec emit cuda` (stdout, stderr and exit status) for every .py under samples/,
# tests/ and engine/tools/fuzz/corpus/ into one folder, one file per program and command, so that two builds
# can be compared with `diff -r`. Used to show that a restructuring of the elaborator changes nothing.
#
#   scripts/ir-snapshot.sh BUILD_DIR OUT_DIR
#   diff -r OUT_BEFORE OUT_AFTER && echo identical
set -euo pipefail
if [[ $# -ne 2 ]]; then
    echo "usage: $0 BUILD_DIR OUT_DIR" >&2
    exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
tilec="$(cd "$1" && pwd)/engine/tools/tilec/tilec"
out="$2"
[[ -x "$tilec" ]] || { echo "no tilec at $tilec" >&2; exit 2; }
mkdir -p "$out"
cd "$root"
count=0
while IFS= read -r -d '' file; do
    name="${file//\//__}"
    for cmd in ir check cuda; do
        case "$cmd" in
        ir) args=(ir "$file" --json) ;;
        check) args=(check "$file") ;;
        cuda) args=(emit cuda "$file") ;;
        esac
        set +e
        timeout 60 "$tilec" "${args[@]}" >"$out/$name.$cmd.out" 2>"$out/$name.$cmd.err"
        echo "exit $?" >>"$out/$name.$cmd.err"
        set -e
    done
    count=$((count + 1))
done < <(find samples tests engine/tools/fuzz/corpus -name '*.py' -type f -print0 | sort -z)
echo "$count programs snapshotted into $out"
