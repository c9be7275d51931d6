#!/usr/bin/env bash
# The libtorch example trainers, standalone and under synergyd: one node
# with one GPU and two jobs under LAS with rounds a third of the longer one, so they take turns,
# each stopped at lease ends (checkpoint with torch::save) and resumed
# (torch::load). Each must end with the very parameters of a straight
# standalone run, and its loss must fall.
# usage: torch_examples.sh BUILD_DIR
BIN=$1
TEST=torch_examples
source "$(dirname "$0")/lib.sh"

iters=400
# Rounds of a third of the longer job's standalone time (at most 1.5 s, at
# least 0.3 s): it then holds its lease over several rounds, on a fast
# machine (image_train: 1.9 s) as on a loaded one.
longest=0
for ex in image_train language_train; do
  took=$(straight_run "$ex" $iters "$BIN/examples/$ex") || exit 1
  longest=$(python3 -c "import sys; print(max(map(float, sys.argv[1:])))" "$longest" "$took")
done
ROUND_S=$(between 0.3 1.5 "$(python3 -c "import sys; print(float(sys.argv[1]) / 3)" "$longest")")
echo "standalone: the longer job took $longest s; rounds of $ROUND_S s"

ROUND_S=$ROUND_S start_daemon
start_node n1 1
wait_for_nodes 1
ids=()
for ex in image_train language_train; do
  ids+=("$(submit_command "$ex" 1 $iters \
    "[\"$BIN/examples/$ex\", \"--checkpoint-dir\", \"$work/ckpt\", \"--result\", \"$work/$ex.leased\"]")")
done
wait_until_done 240 "${ids[@]}"
ctl get jobs -o wide
for i in 0 1; do
  id=${ids[$i]}
  [[ $(state_of "$id") == succeeded ]] || fail "$id is $(state_of "$id")"
done
leases=$(for id in "${ids[@]}"; do ctl describe job "$id" | grep -c "lease .* granted"; done | awk '{ s += $1 } END { print s }')
echo "leases granted: $leases"
((leases > 2)) || fail "the jobs never took turns"
for ex in image_train language_train; do same_as_straight "$ex"; done
echo "ok torch_examples"
