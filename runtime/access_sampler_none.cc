// The access sampler in the archives seer-cc links (access_sampler.h): a
// program built with seer-cc is sampled by its hooks, never by the timer.
#include "runtime/access_sampler.h"

namespace seer::rt {

void SamplerStart(ShmHeader*, bool) {}
bool SamplerStop() { return true; }
int SamplerThreadStarts() { return 0; }
void SamplerThreadEnds() {}
bool SamplerTrap(uint64_t, void*) { return false; }
bool SamplerStep(void*) { return false; }
void SamplerForgetInChild() {}

}  // namespace seer::rt
