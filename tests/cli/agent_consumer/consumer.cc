// A loop of 5 iterations through the installed agent. Without SYNERGY_JOB_ID
// the agent is standalone: every batch passes through and Finish() returns.
#include <cstdio>
#include <vector>

#include "synergy/agent.h"

int main() {
  auto agent = synergy::agent::Agent::FromEnvironment();
  std::vector<int> batches{1, 2, 3, 4, 5};
  int sum = 0;
  for (int batch : agent->wrap(batches)) sum += batch;
  agent->Finish();
  std::printf("iterations %lld sum %d\n", static_cast<long long>(agent->iteration()), sum);
  return sum == 15 ? 0 : 1;
}
