// The recorder side of attach mode without a running program: the area laid out
// behind an attach page in an existing memfd (SharedArea::CreateOn), and the
// collector's cut at detach (RingCollector::StopAtCurrentHeads).
#include "recorder/merge/ring_collector.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/rings/shared_area.h"
#include "seer/ring_layout.h"
#include "tests/support/shm_area.h"

namespace seer::recorder {
namespace {

// Publishes `n` words (values from `first`) in ring `ring`, as a producer does.
void Publish(rt::ShmHeader* shm, uint32_t ring, uint64_t first, uint64_t n) {
  rt::RingDesc& d = rt::RingDescs(shm)[ring];
  uint64_t head = d.head.load();
  for (uint64_t i = 0; i < n; ++i, ++head) rt::RingData(shm, ring)[head & (shm->ring_words - 1)] = first + i;
  d.head.store(head);
}

TEST(RingCollectorTest, NothingPublishedAfterTheCutIsCopied) {
  test::ShmArea a(2, 64);
  a.shm->next_ring.store(1);
  RingCollector collector(a.shm);
  Publish(a.shm, 0, 100, 10);
  RingBatch b;
  ASSERT_TRUE(collector.Collect(false, &b));
  ASSERT_EQ(b.words.size(), 1u);
  EXPECT_EQ(b.words[0].size(), 10u);

  Publish(a.shm, 0, 200, 5);
  collector.StopAtCurrentHeads();
  // Written after the detach: a word more in ring 0, and a ring claimed since.
  Publish(a.shm, 0, 300, 7);
  a.shm->next_ring.store(2);
  Publish(a.shm, 1, 400, 3);
  ASSERT_TRUE(collector.Collect(true, &b));
  ASSERT_EQ(b.words.size(), 1u) << "a ring claimed after the cut was collected";
  ASSERT_EQ(b.words[0].size(), 5u);
  EXPECT_EQ(b.words[0].front(), 200u);
  EXPECT_EQ(b.words[0].back(), 204u);
  EXPECT_EQ(rt::RingDescs(a.shm)[0].tail.load(), 15u);
  // Nothing more, however much is published.
  Publish(a.shm, 0, 500, 20);
  EXPECT_FALSE(collector.Collect(false, &b));
}

TEST(SharedAreaTest, CreateOnLaysTheAreaOutBehindTheAttachPage) {
  const int fd = memfd_create("seer-rt-attach-test", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(rt::kAttachAreaOffset)), 0);
  // The runtime's side of the page: written before the recorder lays out the area.
  void* page = mmap(nullptr, rt::kAttachAreaOffset, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(page, MAP_FAILED);
  static_cast<rt::AttachPoint*>(page)->magic = rt::kAttachMagic;

  SharedArea area;
  const SharedAreaOptions options{4, 1u << 10, 1000};
  ASSERT_TRUE(area.CreateOn(dup(fd), rt::kAttachAreaOffset, options).ok());
  struct stat st;
  ASSERT_EQ(fstat(fd, &st), 0);
  EXPECT_EQ(static_cast<uint64_t>(st.st_size), rt::kAttachAreaOffset + rt::ShmBytes(4, 1u << 10));
  // What the runtime maps: the header right after the page, the page untouched.
  void* whole = mmap(nullptr, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
  ASSERT_NE(whole, MAP_FAILED);
  const auto* h = reinterpret_cast<const rt::ShmHeader*>(static_cast<char*>(whole) + rt::kAttachAreaOffset);
  EXPECT_EQ(h->magic, rt::kShmMagic);
  EXPECT_EQ(h->max_rings, 4u);
  EXPECT_EQ(h->ring_words, 1u << 10);
  EXPECT_EQ(h->wait_ns, 1000u);
  EXPECT_EQ(static_cast<const rt::AttachPoint*>(whole)->magic, rt::kAttachMagic);
  munmap(whole, st.st_size);
  munmap(page, rt::kAttachAreaOffset);
  close(fd);
}

}  // namespace
}  // namespace seer::recorder
