#include "cli/suggest.h"

#include <algorithm>

namespace synergy::cli {
namespace {

// Optimal string alignment distance (Damerau-Levenshtein without repeated
// edits of one substring): a swapped pair of letters is one edit.
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::string Nearest(const std::string& word, const std::vector<std::string>& known) {
  // A command line's words are short; a long one is no typo of a command.
  if (word.empty() || word.size() > 64) return "";
  std::string best;
  size_t best_distance = 3;
  for (const std::string& k : known) {
    const size_t d = EditDistance(word, k);
    if (d < best_distance && 2 * d < word.size()) {
      best = k;
      best_distance = d;
    }
  }
  return best;
}

std::string DidYouMean(const std::string& word, const std::vector<std::string>& known) {
  const std::string near = Nearest(word, known);
  return near.empty() ? "" : " (did you mean '" + near + "'?)";
}

}  // namespace synergy::cli
