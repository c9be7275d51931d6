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
((status == 0)) && echo "ok ctl_help"
exit $status
