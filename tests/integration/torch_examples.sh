#!/usr/bin/env bash
# The libtorch example trainers, standalone and under synergyd: one node
# with one GPU and two jobs under LAS with 1.5 s rounds, so they take turns,
# each stopped at lease ends (checkpoint with torch::save) and resumed
# (torch::load). Each must end with the very parameters of a straight
# standalone run, and its loss must fall.
# usage: torch_examples.sh BUILD_DIR
BIN=$1
TEST=torch_examples
source "$(dirname "$0")/lib.sh"

iters=400
for ex in image_train language_train; do
  out=$("$BIN/examples/$ex" --iterations $iters --checkpoint-dir "$work/straight" --result "$work/$ex.straight" 2>&1) ||
    fail "$ex standalone: $out"
  echo "$out" | tail -1
  loss_fell "$ex" "$out"
done

start_daemon
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
