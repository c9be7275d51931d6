#pragma once
// synergyctl's commands as the user sees them: the usage text, help for each
// command (`synergyctl get --help`), and a bash completion script generated
// from the same table (`source <(synergyctl completion bash)`), so the
// three cannot disagree.
#include <string>
#include <vector>

namespace synergy::cli {

struct CommandHelp {
  std::string name;
  std::string synopsis;  // one or more lines, without "synergyctl "
  std::string about;     // what it does, its flags
  std::vector<std::string> words;  // what completes after the command (subjects, flags)
};

const std::vector<CommandHelp>& Commands();
// The whole usage (every command's synopsis and the global flags).
std::string Usage();
// One command's help; "" for an unknown command.
std::string HelpFor(const std::string& command);
// A bash completion script for synergyctl (shells other than bash: "").
std::string CompletionScript(const std::string& shell);

}  // namespace synergy::cli
