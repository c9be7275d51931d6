#!/usr/bin/env bash
# synergyctl's help and completion, without a daemon: every command has its
# own help; the bash completion script parses, registers itself, and
# completes commands, subjects and flag values.
# usage: ctl_help.sh BUILD_DIR
set -uo pipefail
ctl=$1/synergyctl
status=0
fail() { echo "FAIL $*"; status=1; }
"$ctl" --help | grep -q '^  history ' || fail "--help lists no history"
for command in submit get history describe cancel cluster drain undrain hash-credential completion; do
  out=$("$ctl" "$command" --help) || fail "$command --help: status $?"
  [[ $out == "usage: synergyctl $command"* ]] || fail "$command --help: '$out'"
done
"$ctl" completion zsh >/dev/null 2>&1; [[ $? == 2 ]] || fail "completion zsh is not bad usage"
script=$("$ctl" completion bash) || fail "completion bash: status $?"
bash -n <<<"$script" || fail "the completion script does not parse"
complete_words() {  # WORDS...: what completes the last word
  bash -c 'source /dev/stdin; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _synergyctl; echo "${COMPREPLY[*]}"' \
    _ "$@" <<<"$script"
}
[[ $(complete_words synergyctl hi) == history ]] || fail "synergyctl hi<TAB>: '$(complete_words synergyctl hi)'"
[[ $(complete_words synergyctl --server x:1 ge) == get ]] || fail "a flag's value is not a command"
[[ $(complete_words synergyctl get no) == nodes ]] || fail "get no<TAB>: '$(complete_words synergyctl get no)'"
[[ $(complete_words synergyctl get jobs --state ru) == running ]] || fail "--state ru<TAB>"
[[ $(complete_words synergyctl get jobs --sort-by a) == age ]] || fail "--sort-by a<TAB>"
[[ $(complete_words synergyctl history --si) == --since ]] || fail "history --si<TAB>"
[[ $(complete_words synergyctl history --l) == --limit ]] || fail "history --l<TAB>"
[[ $(complete_words synergyctl get jobs --state tim) == timed_out ]] || fail "--state tim<TAB>"
# Job ids and node names come from synergyd (here a stand-in synergyctl on
# PATH that records how it was asked), with the line's connection flags.
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
cat >"$fake/synergyctl" <<'FAKE'
#!/bin/sh
echo "$*" >>"$(dirname "$0")/asked"
case "$*" in
  *"get jobs -o name") printf 'j-000001\nj-000002\nj-000010\n' ;;
  *"get nodes -o name") printf 'gpu-01\ngpu-02\n' ;;
esac
FAKE
chmod +x "$fake/synergyctl"
with_fake() { PATH="$fake:$PATH" complete_words "$@"; }
[[ $(with_fake synergyctl cancel j-00000) == "j-000001 j-000002" ]] || fail "cancel j-00000<TAB>: '$(with_fake synergyctl cancel j-00000)'"
[[ $(with_fake synergyctl --server a:1 describe job j-00001) == j-000010 ]] || fail "describe job j-00001<TAB>"
grep -q -- "--server a:1 get jobs -o name" "$fake/asked" || fail "the completion did not pass --server: $(cat "$fake/asked")"
[[ $(with_fake synergyctl drain gpu-0) == "gpu-01 gpu-02" ]] || fail "drain gpu-0<TAB>: '$(with_fake synergyctl drain gpu-0)'"
[[ $(with_fake synergyctl describe node g) == "gpu-01 gpu-02" ]] || fail "describe node g<TAB>"
[[ $(with_fake synergyctl cancel --us) == --user ]] || fail "cancel --us<TAB>: a flag, not an id"
((status == 0)) && echo "ok ctl_help"
exit $status
