#include "distributed/replicas.h"

#include <cstring>

namespace realmt::distributed {

uint64_t content_hash(const Tensor& t) {
  const Tensor host = t.to(Device::cpu());
  const auto* p = static_cast<const unsigned char*>(host.raw());
  const size_t n = host.nbytes();
  // 64-bit words through a multiply-rotate mix (fast enough for a 1 GB arena at each save),
  // then the tail bytes; the length is mixed in so that zero padding changes the hash.
  uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    h = (h << 31) | (h >> 33);
  }
  for (; i < n; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  return h;
}

void check_replicas_agree(Communicator& comm, const Tensor& t, const std::string& what) {
  if (comm.size() == 1) return;
  const uint64_t mine = content_hash(t);
  std::string root(sizeof mine, '\0');
  std::memcpy(root.data(), &mine, sizeof mine);
  comm.broadcast(root, 0);
  uint64_t theirs = 0;
  std::memcpy(&theirs, root.data(), sizeof theirs);
  int64_t differ[1] = {mine != theirs ? 1 : 0};
  comm.all_reduce_sum(std::span<int64_t>(differ));
  REALMT_CHECK(differ[0] == 0,
               "{} differ between the ranks of the job ({} of {} ranks differ from rank 0): the "
               "replicas are no "
               "longer the same model. Were all ranks started from the same state? Resuming needs "
               "the state file "
               "on a filesystem that every rank sees",
               what, differ[0], comm.size());
}

}  // namespace realmt::distributed
