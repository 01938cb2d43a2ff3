// A copy of a node's data (all 16 databases with their expiries): what an RDB snapshot, or a
// restart with persistence, keeps. Scripts and connections are not part of it, as in Redis 7.0
// (its RDB files no longer carry the script cache).
#ifndef LOCKSTEP_SIM_REDIS_DATASET_H_
#define LOCKSTEP_SIM_REDIS_DATASET_H_

#include <cstddef>
#include <memory>

namespace lockstep::redis {

class Dataset {
 public:
  struct Data;  // defined in node.cc
  explicit Dataset(std::unique_ptr<Data> data);
  ~Dataset();
  Dataset(const Dataset& other);
  Dataset& operator=(const Dataset&) = delete;

  // Keys in all databases, expired or not.
  size_t key_count() const;
  const Data& data() const { return *data_; }

 private:
  std::unique_ptr<Data> data_;
};

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_DATASET_H_
