#include "cli/job_actions.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/array_rows.h"
#include "service/escape.h"

namespace synergy::cli {

int ActOnJobs(const std::string& verb, const std::vector<std::string>& ids, const JobAct& act,
              const std::function<std::string(const v1::Job&)>& done_text, std::ostream& out, std::ostream& err) {
  int done = 0;
  int rc = 0;
  for (const std::string& id : ids) {
    v1::Job after;
    const grpc::Status st = act(id, &after);
    if (st.ok()) {
      ++done;
      out << service::EscapeForDisplay(ListedId(after)) << " " << done_text(after) << "\n";
      continue;
    }
    // synergyd's messages may quote what another user chose: escaped.
    err << "synergyctl: " << service::EscapeForDisplay(id) << ": " << service::EscapeForDisplay(st.error_message())
        << "\n";
    rc = st.error_code() == grpc::StatusCode::INVALID_ARGUMENT ? 2 : std::max(rc, 1);
  }
  if (ids.size() > 1) err << verb << ": " << done << " of " << ids.size() << "\n";
  return rc;
}

std::string ConfirmSelection(const std::string& verb, const std::vector<std::string>& ids, bool yes) {
  if (ids.size() <= 1 || yes) return "";
  constexpr size_t kShown = 10;
  std::vector<std::string> shown;
  for (size_t i = 0; i < ids.size() && i < kShown; ++i) shown.push_back(service::EscapeForDisplay(ids[i]));
  return absl::StrCat(ids.size(), " jobs match (", absl::StrJoin(shown, " "), ids.size() > kShown ? " ..." : "",
                      "): add --yes to ", verb, " them all");
}

}  // namespace synergy::cli
