#!/usr/bin/env bash
# Fidelity: replay every trace in tests/fidelity/data/traces under every
# policy and mechanism with --reference-compatible, and compare per-job JCTs
# with the reference simulator's (tests/fidelity/data/results). A run passes
# when its mean JCT is within 1% of the reference's and at least 99% of jobs
# have the same JCT. data/placement.csv names the GPU placement each results
# file was produced with (data/README.md tells how that was established).
# usage: check_fidelity.sh SYNERGY_SIM SOURCE_DIR
set -euo pipefail
sim=$1
src=$2
data=$src/tests/fidelity/data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

failed=0
printf '%-6s %-5s %-13s %-11s %6s %10s %10s %8s %7s\n' trace policy mechanism placement jobs ref_mean_h mean_h diff same
for trace in "$data"/traces/*.csv; do
  name=$(basename "$trace" .csv)
  for policy in fifo srtf las ftf; do
    for mech in fair greedy tune; do
      expected=$data/results/$name/${policy^^}-$mech.csv
      [[ -f $expected ]] || continue
      mechanism=$mech
      [[ $mech == fair ]] && mechanism=proportional
      placement=$(awk -F, -v t="$name" -v p="$policy" -v m="$mech" \
        '$1 == t && $2 == p && $3 == m { print $4 }' "$data/placement.csv")
      placement=${placement:-consolidate}
      out=$work/$name-$policy-$mech
      "$sim" run --trace "$trace" --policy "$policy" --mechanism "$mechanism" \
        --placement "$placement" --reference-compatible --no-progress --out "$out" >/dev/null
      # jobs.csv: job_id,model,gpus,arrival_s,start_s,finish_s,jct_s
      read -r jobs ref_mean mean same < <(awk -F, '
        FNR == 1 { next }
        NR == FNR { ref[$1] = $2; n++; rsum += $2; next }
        { got[$1] = $7 }
        END {
          for (id in ref) {
            if (id in got) { msum += got[id]; if (got[id] + 0 == ref[id] + 0) same++ }
          }
          printf "%d %.6f %.6f %d\n", n, rsum / n / 3600, msum / n / 3600, same
        }' "$expected" "$out/jobs.csv")
      verdict=$(awk -v r="$ref_mean" -v m="$mean" -v s="$same" -v n="$jobs" 'BEGIN {
        d = (m - r) / r; if (d < 0) d = -d
        print (d <= 0.01 && s >= 0.99 * n) ? "ok" : "FAIL" }')
      printf '%-6s %-5s %-13s %-11s %6d %10.4f %10.4f %7.3f%% %6.2f%% %s\n' "$name" "$policy" "$mechanism" "$placement" \
        "$jobs" "$ref_mean" "$mean" "$(awk -v r="$ref_mean" -v m="$mean" 'BEGIN{print 100*(m-r)/r}')" \
        "$(awk -v s="$same" -v n="$jobs" 'BEGIN{print 100*s/n}')" "$verdict"
      [[ $verdict == ok ]] || failed=1
    done
  done
done
exit $failed
