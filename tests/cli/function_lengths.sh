#!/usr/bin/env bash
# Functions of a screen (issue 40): scripts/function-lengths passes on the
# tree, and fails on a scratch tree whose function is one line too long,
# naming it, and on a listed function that grew; braces in strings, raw
# strings and comments, and digit separators (60'000), do not fool it.
# usage: function_lengths.sh SOURCE_DIR
set -u
src=$1
check=$src/scripts/function-lengths
"$check" "$src" || { echo "FAIL: the tree has functions over 60 lines that are not listed"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/scripts"
: >"$tmp/scripts/function-lengths.allow"
# A function of `n` lines (signature to closing brace), with braces in a
# string, a raw string and a comment, and a digit separator.
function_of() {
  local name=$1 n=$2
  echo "int $name(int x) {"
  echo '  const char* a = "{{{";  // } } }'
  echo '  const char* b = R"x({ "}" )x";'"  int c = 60'000;"
  for ((i = 4; i < n; i++)); do echo "  x += $i;"; done
  echo "}"
}
{ function_of Short 60; echo "namespace n {"; function_of Long 61; echo "}  // namespace n"; } >"$tmp/src/a.cc"
out=$("$check" "$tmp")
[[ $? != 0 && $out == *"src/a.cc:Long: 61 lines"* && $out != *"Short"* ]] ||
  { echo "FAIL: a 61-line function was not named (or a 60-line one was): $out"; exit 1; }
echo "src/a.cc:Long 61" >"$tmp/scripts/function-lengths.allow"
"$check" "$tmp" >/dev/null || { echo "FAIL: a listed function at its length was refused"; exit 1; }
{ function_of Short 60; function_of Long 62; } >"$tmp/src/a.cc"
out=$("$check" "$tmp")
[[ $? != 0 && $out == *"more than the 61 it is allowed"* ]] || { echo "FAIL: a listed function grew unnoticed: $out"; exit 1; }
{ function_of Short 60; function_of Long 20; } >"$tmp/src/a.cc"
out=$("$check" "$tmp")
[[ $? != 0 && $out == *"take it off"* ]] || { echo "FAIL: a listed function cut short stayed listed: $out"; exit 1; }
echo "PASS"
