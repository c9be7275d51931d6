#include "sim/workload.h"

#include <cmath>

namespace synergy::sim {

WorkloadGenerator::WorkloadGenerator(const GeneratorConfig& config, const ModelZoo& zoo)
    : config_(config), zoo_(&zoo), random_(config.seed) {
  for (int t = 0; t < 3; ++t) models_of_task_[t] = zoo.ModelsOfTask(static_cast<Task>(t));
}

int WorkloadGenerator::NextModel() {
  // The task furthest below its target share of all jobs so far goes next
  // (first in image, language, speech order on ties). Before the first job
  // every task's priority is 0, as in the reference, so job 0 is an image
  // job whatever the split.
  const int64_t total = jobs_of_task_[0] + jobs_of_task_[1] + jobs_of_task_[2];
  int best = -1;
  double best_priority = 0;
  for (int t = 0; t < 3; ++t) {
    if (models_of_task_[t].empty()) continue;
    double priority = 0;
    if (total > 0) {
      priority = config_.split_percent[t] / 100.0 -
                 static_cast<double>(jobs_of_task_[t]) / static_cast<double>(total);
    }
    if (best < 0 || priority > best_priority) {
      best = t;
      best_priority = priority;
    }
  }
  const std::vector<int>& models = models_of_task_[best];
  const int model = models[round_robin_[best] % static_cast<int64_t>(models.size())];
  ++round_robin_[best];
  ++jobs_of_task_[best];
  return model;
}

JobSpec WorkloadGenerator::Next() {
  JobSpec job;
  job.id = next_id_++;
  // Draw order matters: inter-arrival, duration class, duration, GPUs, then
  // the class draw the reference makes and ignores.
  const double hours = -std::log(1.0 - random_.Random()) / config_.load_jobs_per_hour;
  job.arrival_s = last_arrival_s_ + std::ceil(hours * 60 * 60);
  last_arrival_s_ = job.arrival_s;

  double duration_s = 0;
  if (random_.Random() >= 0.8) {
    duration_s = 60 * std::pow(10.0, random_.Uniform(3, 4));
  } else {
    duration_s = 60 * std::pow(10.0, random_.Uniform(1.5, 3));
  }
  const double u = random_.Uniform(0, 1);
  int gpus = 1;
  if (u >= 0.95) {
    gpus = 8;
  } else if (u >= 0.8) {
    gpus = 4;
  } else if (u >= 0.7) {
    gpus = 2;
  }
  job.gpus = config_.multi_gpu ? gpus : 1;
  // The reference draws a model class uniformly and then overrides it.
  random_.RandInt(0, static_cast<int64_t>(zoo_->models().size()) - 1);

  job.model = NextModel();
  const double iteration_time = zoo_->model(job.model).iteration_time_s;
  job.iterations = std::trunc(duration_s / iteration_time);
  return job;
}

}  // namespace synergy::sim
