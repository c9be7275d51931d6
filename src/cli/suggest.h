#pragma once
// "Did you mean": the known word nearest to a mistyped one, so that
// `synergyctl cancle` and `--stat` say what was probably meant.
#include <string>
#include <vector>

namespace synergy::cli {

// The word of `known` nearest to `word` by edit distance (insertions,
// deletions, substitutions and swaps of neighbours), if at most 2 edits and
// fewer than half of `word`'s letters; "" where none is that near. Ties go
// to the first in `known`.
std::string Nearest(const std::string& word, const std::vector<std::string>& known);

// " (did you mean 'X'?)" for Nearest's X; "" where there is none.
std::string DidYouMean(const std::string& word, const std::vector<std::string>& known);

}  // namespace synergy::cli
