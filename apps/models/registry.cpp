// The registry of case models, from model_list.hpp.

#include <algorithm>

#include "model.hpp"

namespace haloflow::models {

#define HALOFLOW_MODEL(name) std::unique_ptr<Model> make_##name##_model();
#include "model_list.hpp"
#undef HALOFLOW_MODEL

namespace {

struct Entry {
  std::string name;
  std::unique_ptr<Model> (*make)();
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> all = {
#define HALOFLOW_MODEL(name) Entry{#name, &make_##name##_model},
#include "model_list.hpp"
#undef HALOFLOW_MODEL
  };
  return all;
}

}  // namespace

const std::vector<std::string>& model_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Entry& entry : entries()) out.push_back(entry.name);
    return out;
  }();
  return names;
}

std::unique_ptr<Model> make_model(std::string_view name) {
  const auto& all = entries();
  const auto found =
      std::find_if(all.begin(), all.end(), [&](const Entry& entry) { return entry.name == name; });
  return found == all.end() ? nullptr : found->make();
}

}  // namespace haloflow::models
