#pragma once
// A map whose changes can be undone: the mechanism behind "nothing changes
// before it is stored". While a change is open (Open), the first Edit,
// Insert or Erase of a key keeps the value it had (or its absence); Undo
// puts every touched key back, Keep forgets the old values. Reading never
// journals, so a change costs a copy of what it touches, not of the map.
//
// Values are reachable mutably only through Edit: a caller cannot change
// one without it being journaled (the compiler finds every mutation).
#include <map>
#include <optional>
#include <utility>

namespace synergy::daemon {

template <typename Key, typename Value>
class JournaledMap {
 public:
  using Map = std::map<Key, Value>;

  const Map& all() const { return values_; }
  const Value& at(const Key& key) const { return values_.at(key); }
  typename Map::const_iterator find(const Key& key) const { return values_.find(key); }
  typename Map::const_iterator begin() const { return values_.begin(); }
  typename Map::const_iterator end() const { return values_.end(); }
  size_t count(const Key& key) const { return values_.count(key); }
  size_t size() const { return values_.size(); }
  bool empty() const { return values_.empty(); }

  // The value at `key` (which must exist), to change.
  Value& Edit(const Key& key) {
    Journal(key);
    return values_.at(key);
  }
  // The value at `key`, made with Value{} when absent, to change.
  Value& EditOrAdd(const Key& key) {
    Journal(key);
    return values_[key];
  }
  Value& Insert(const Key& key, Value value) {
    Journal(key);
    return values_[key] = std::move(value);
  }
  void Erase(const Key& key) {
    Journal(key);
    values_.erase(key);
  }

  // Starts journaling (a change must not be open already).
  void Open() {
    before_.clear();
    open_ = true;
  }
  // The change is stored: its values stay.
  void Keep() {
    before_.clear();
    open_ = false;
  }
  // The change failed: every key it touched is as it was at Open.
  void Undo() {
    for (auto& [key, old] : before_) {
      if (old) {
        values_[key] = std::move(*old);
      } else {
        values_.erase(key);
      }
    }
    before_.clear();
    open_ = false;
  }
  bool open() const { return open_; }
  // The keys the open change touched (before Keep or Undo).
  template <typename F>
  void ForEachTouched(F&& f) const {
    for (const auto& [key, old] : before_) f(key);
  }

 private:
  void Journal(const Key& key) {
    if (!open_ || before_.count(key)) return;
    auto it = values_.find(key);
    before_.emplace(key, it == values_.end() ? std::nullopt : std::optional<Value>(it->second));
  }

  Map values_;
  std::map<Key, std::optional<Value>> before_;
  bool open_ = false;
};

}  // namespace synergy::daemon
