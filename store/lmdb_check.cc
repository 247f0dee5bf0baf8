// The layout constants below are LMDB 0.9's on-disk format (mdb.c: MDB_page,
// MDB_meta, MDB_db, MDB_node), which LMDB keeps stable within its data version 1.
// The walk reads with pread into its own buffers, so a damaged file can only make
// it return an error; it visits each page at most once, so it always ends.
#include "store/lmdb_check.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

#include "store/tables.h"

namespace seer::store {
namespace {

constexpr uint32_t kMagic = 0xBEEFC0DE;
constexpr uint32_t kDataVersion = 1;
constexpr size_t kPageHeader = 16;  // PAGEHDRSZ
constexpr size_t kNodeHeader = 8;   // NODESIZE
constexpr size_t kMetaOffset = kPageHeader;
constexpr size_t kMetaSize = 152;  // sizeof(MDB_meta)
constexpr size_t kDbSize = 48;     // sizeof(MDB_db)
constexpr uint64_t kInvalidPage = ~uint64_t{0};
constexpr uint32_t kMaxKeySize = 511;  // MDB_MAXKEYSIZE
constexpr int kMaxDepth = 32;          // CURSOR_STACK: LMDB refuses deeper trees

// Page flags.
constexpr uint16_t kBranch = 0x01, kLeaf = 0x02, kOverflow = 0x04, kMeta = 0x08;
// Node flags.
constexpr uint16_t kBigData = 0x01, kSubData = 0x02;

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

struct Db {  // MDB_db
  uint32_t pad = 0;
  uint16_t flags = 0;
  uint16_t depth = 0;
  uint64_t branch_pages = 0, leaf_pages = 0, overflow_pages = 0, entries = 0, root = 0;

  static Db Parse(const uint8_t* p) {
    Db d;
    d.pad = Load<uint32_t>(p);
    d.flags = Load<uint16_t>(p + 4);
    d.depth = Load<uint16_t>(p + 6);
    d.branch_pages = Load<uint64_t>(p + 8);
    d.leaf_pages = Load<uint64_t>(p + 16);
    d.overflow_pages = Load<uint64_t>(p + 24);
    d.entries = Load<uint64_t>(p + 32);
    d.root = Load<uint64_t>(p + 40);
    return d;
  }
};

struct Meta {  // MDB_meta, read from page 0 or 1
  uint32_t magic = 0, version = 0;
  Db free_db, main_db;
  uint64_t last_page = 0, txnid = 0;
  uint16_t page_flags = 0;

  uint32_t page_size() const { return free_db.pad; }  // mm_psize

  static Meta Parse(const uint8_t* page) {
    Meta m;
    m.page_flags = Load<uint16_t>(page + 10);
    const uint8_t* p = page + kMetaOffset;
    m.magic = Load<uint32_t>(p);
    m.version = Load<uint32_t>(p + 4);
    m.free_db = Db::Parse(p + 24);
    m.main_db = Db::Parse(p + 24 + kDbSize);
    m.last_page = Load<uint64_t>(p + 24 + 2 * kDbSize);
    m.txnid = Load<uint64_t>(p + 24 + 2 * kDbSize + 8);
    return m;
  }
};

// LMDB's default key order (mdb_cmp_memn): bytes, then length.
int CompareKeys(std::string_view a, std::string_view b) {
  int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

std::string Str(uint64_t v) { return std::to_string(v); }

class Walker {
 public:
  Walker(int fd, uint32_t page_size, uint64_t pages) : fd_(fd), page_size_(page_size), pages_(pages), seen_(pages) {
    // Pages 0 and 1 are the meta pages: no tree may point at them.
    for (uint64_t p = 0; p < 2 && p < pages; ++p) seen_[p] = true;
  }

  uint64_t pages_read() const { return pages_read_; }

  // Walks the tree `db` of table `name` ("" for the main tree, the list of tables).
  // For the main tree, collects the named databases it lists.
  Status WalkTree(const std::string& name, const Db& db) {
    table_ = name.empty() ? std::string("the table directory") : "the " + name + " table";
    main_tree_ = name.empty();
    if (db.root == kInvalidPage) {
      if (db.depth != 0 || db.entries != 0 || db.branch_pages != 0 || db.leaf_pages != 0 || db.overflow_pages != 0)
        return Damaged(table_ + " is empty but its record says it holds " + Str(db.entries) + " entries");
      return Status::Ok();
    }
    if (db.depth < 1 || db.depth > kMaxDepth)
      return Damaged(table_ + " claims a depth of " + Str(db.depth) + " (at most " + Str(kMaxDepth) + ")");
    depth_ = db.depth;
    counted_ = Db();
    buffers_.assign(depth_, std::vector<uint8_t>(page_size_));
    Status s = WalkPage(db.root, 1, std::string_view(), false, std::string_view(), false);
    if (!s.ok()) return s;
    auto mismatch = [&](const char* what, uint64_t found, uint64_t recorded) {
      return Damaged(table_ + " has " + Str(found) + " " + what + ", its record says " + Str(recorded));
    };
    if (counted_.entries != db.entries) return mismatch("entries", counted_.entries, db.entries);
    if (counted_.branch_pages != db.branch_pages)
      return mismatch("branch pages", counted_.branch_pages, db.branch_pages);
    if (counted_.leaf_pages != db.leaf_pages) return mismatch("leaf pages", counted_.leaf_pages, db.leaf_pages);
    if (counted_.overflow_pages != db.overflow_pages)
      return mismatch("overflow pages", counted_.overflow_pages, db.overflow_pages);
    return Status::Ok();
  }

  // The named databases found in the main tree, in key order.
  const std::vector<std::pair<std::string, Db>>& tables() const { return tables_; }

 private:
  static Status Damaged(const std::string& what) { return Status::Corruption("damaged: " + what); }

  std::string PageName(uint64_t pgno) const { return "page " + Str(pgno) + " of " + table_; }

  // Claims `count` pages from `pgno` for the walk; a page reached twice means a
  // cycle or two trees sharing a page, both damage.
  // `from` names the reference for a message.
  template <typename From>
  Status Claim(uint64_t pgno, uint64_t count, const From& from) {
    if (pgno >= pages_ || count > pages_ - pgno)
      return Damaged(from() + " points past the end of the file (" + Str(pages_) + " pages)");
    for (uint64_t p = pgno; p < pgno + count; ++p) {
      if (seen_[p]) return Damaged(from() + " points to page " + Str(p) + ", which is already in use");
      seen_[p] = true;
    }
    return Status::Ok();
  }

  Status Read(uint64_t pgno, size_t bytes, uint8_t* out) {
    ssize_t n = pread(fd_, out, bytes, static_cast<off_t>(pgno * page_size_));
    if (n < 0) return Status::IOError("reading page " + Str(pgno) + ": " + std::strerror(errno));
    if (static_cast<size_t>(n) != bytes) return Status::Corruption("truncated: page " + Str(pgno) + " is cut short");
    return Status::Ok();
  }

  // Checks the page `pgno` at tree level `level` (the root is 1) and every page
  // below it. Its keys must lie in [low, high) when those bounds are set.
  Status WalkPage(uint64_t pgno, int level, std::string_view low, bool has_low, std::string_view high, bool has_high) {
    Status s = Claim(pgno, 1, [&] {
      return level == 1 ? "the root of " + table_ : "a branch of " + table_ + " (to page " + Str(pgno) + ")";
    });
    if (!s.ok()) return s;
    uint8_t* page = buffers_[level - 1].data();
    s = Read(pgno, page_size_, page);
    if (!s.ok()) return s;
    ++pages_read_;
    auto where = [&] { return PageName(pgno); };
    if (Load<uint64_t>(page) != pgno) return Damaged(where() + " is labelled page " + Str(Load<uint64_t>(page)));
    const uint16_t flags = Load<uint16_t>(page + 10);
    const bool leaf = level == depth_;
    if (flags != (leaf ? kLeaf : kBranch))
      return Damaged(where() + " has flags " + Str(flags) + ", expected a " + (leaf ? "leaf" : "branch") + " page");
    const uint16_t lower = Load<uint16_t>(page + 12), upper = Load<uint16_t>(page + 14);
    if (lower < kPageHeader || lower > upper || upper > page_size_ || (lower - kPageHeader) % 2 != 0)
      return Damaged(where() + " has a bad header (lower " + Str(lower) + ", upper " + Str(upper) + ")");
    const size_t keys = (lower - kPageHeader) / 2;
    if (keys == 0) return Damaged(where() + " holds no keys");
    if (leaf) {
      ++counted_.leaf_pages;
      counted_.entries += keys;
    } else {
      ++counted_.branch_pages;
    }

    std::string_view previous;
    for (size_t i = 0; i < keys; ++i) {
      // Messages are built only on failure: this loop runs for every key.
      auto node_name = [&] { return where() + ", node " + Str(i); };
      const uint16_t offset = Load<uint16_t>(page + kPageHeader + 2 * i);
      if (offset < upper || offset % 2 != 0 || size_t{offset} + kNodeHeader > page_size_)
        return Damaged(node_name() + " lies outside the page's nodes (offset " + Str(offset) + ")");
      const uint8_t* node = page + offset;
      const uint16_t lo = Load<uint16_t>(node), hi = Load<uint16_t>(node + 2);
      const uint16_t node_flags = Load<uint16_t>(node + 4), key_size = Load<uint16_t>(node + 6);
      const size_t room = page_size_ - offset - kNodeHeader;
      // A branch's first key is never compared (it stands for "everything below").
      const bool key_unused = !leaf && i == 0;
      if (key_size > kMaxKeySize || key_size > room || (key_size == 0 && !key_unused))
        return Damaged(node_name() + " has a key of " + Str(key_size) + " bytes");
      std::string_view key(reinterpret_cast<const char*>(node + kNodeHeader), key_size);
      if (!key_unused) {
        if (i > 0 && !(i == 1 && !leaf) && CompareKeys(previous, key) >= 0)
          return Damaged(node_name() + ": keys out of order");
        if (has_low && CompareKeys(key, low) < 0) return Damaged(node_name() + ": key below its branch");
        if (has_high && CompareKeys(key, high) >= 0) return Damaged(node_name() + ": key above its branch");
        previous = key;
      }
      const uint8_t* data = node + kNodeHeader + key_size;
      const size_t data_room = room - key_size;
      if (!leaf) {
        const uint64_t child = lo | (uint64_t{hi} << 16) | (uint64_t{node_flags} << 32);
        // The child's keys lie between this node's key and the next node's.
        std::string_view child_low = key_unused ? low : key;
        const bool child_has_low = key_unused ? has_low : true;
        std::string_view child_high = high;
        bool child_has_high = has_high;
        if (i + 1 < keys) {
          const uint16_t next_offset = Load<uint16_t>(page + kPageHeader + 2 * (i + 1));
          if (next_offset < upper || size_t{next_offset} + kNodeHeader > page_size_)
            return Damaged(where() + ", node " + Str(i + 1) + " lies outside the page's nodes");
          const uint16_t next_size = Load<uint16_t>(page + next_offset + 6);
          if (next_size == 0 || next_size > kMaxKeySize || next_size > page_size_ - next_offset - kNodeHeader)
            return Damaged(where() + ", node " + Str(i + 1) + " has a key of " + Str(next_size) + " bytes");
          child_high = std::string_view(reinterpret_cast<const char*>(page + next_offset + kNodeHeader), next_size);
          child_has_high = true;
        }
        s = WalkPage(child, level + 1, child_low, child_has_low, child_high, child_has_high);
        if (!s.ok()) return s;
        continue;
      }
      const uint32_t data_size = lo | (uint32_t{hi} << 16);
      if (main_tree_) {
        // The main tree lists the named databases: each value is an MDB_db.
        if (node_flags != kSubData || data_size != kDbSize || data_room < kDbSize)
          return Damaged(node_name() + " is not a table record");
        Db sub = Db::Parse(data);
        if (sub.flags != 0 || sub.pad != 0)
          return Damaged("the record of table '" + Printable(key) + "' has flags " + Str(sub.flags));
        tables_.emplace_back(Printable(key), sub);
        continue;
      }
      if (node_flags == 0) {
        if (data_size > data_room)
          return Damaged(node_name() + " has a value of " + Str(data_size) + " bytes, past the end of its page");
        continue;
      }
      if (node_flags != kBigData) return Damaged(node_name() + " has flags " + Str(node_flags));
      if (data_room < 8) return Damaged(node_name() + " has no room for its overflow page number");
      s = CheckOverflow(Load<uint64_t>(data), data_size, node_name);
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }

  // A value too large for its leaf lives in a run of overflow pages; the first
  // page's header gives the run's length.
  template <typename NodeName>
  Status CheckOverflow(uint64_t pgno, uint32_t data_size, const NodeName& node_name) {
    const uint64_t needed = (kPageHeader - 1 + uint64_t{data_size}) / page_size_ + 1;  // OVPAGES
    Status s = Claim(pgno, needed, [&] { return node_name() + " (a value of " + Str(data_size) + " bytes)"; });
    if (!s.ok()) return s;
    uint8_t header[kPageHeader];
    s = Read(pgno, kPageHeader, header);
    if (!s.ok()) return s;
    if (Load<uint64_t>(header) != pgno || Load<uint16_t>(header + 10) != kOverflow ||
        Load<uint32_t>(header + 12) != needed)
      return Damaged("overflow page " + Str(pgno) + " of " + table_ + " has a bad header");
    counted_.overflow_pages += needed;
    return Status::Ok();
  }

  int fd_;
  uint32_t page_size_;
  uint64_t pages_;
  std::vector<bool> seen_;
  std::vector<std::vector<uint8_t>> buffers_;  // one page per tree level
  std::string table_;
  bool main_tree_ = false;
  int depth_ = 0;
  Db counted_;
  uint64_t pages_read_ = 0;
  std::vector<std::pair<std::string, Db>> tables_;
};

Status ReadMeta(int fd, uint64_t offset, Meta* meta) {
  uint8_t buf[kMetaOffset + kMetaSize];
  ssize_t n = pread(fd, buf, sizeof(buf), static_cast<off_t>(offset));
  if (n < 0) return Status::IOError(std::string("reading a meta page: ") + std::strerror(errno));
  if (static_cast<size_t>(n) != sizeof(buf)) return Status::Corruption("truncated: a meta page is cut short");
  *meta = Meta::Parse(buf);
  return Status::Ok();
}

}  // namespace

Status CheckLmdbFile(int fd, uint64_t file_size, LmdbFileLayout* layout) {
  // Page 0 gives the page size, which places page 1. mdb_env_read_header reads
  // them the same way; it refuses a bad magic or version (reported by the caller
  // as "not a seer trace") but trusts the rest.
  Meta metas[2];
  Status s = ReadMeta(fd, 0, &metas[0]);
  if (!s.ok()) return s;
  if (metas[0].magic != kMagic) return Status::Corruption("not a seer trace (not an LMDB file)");
  if (metas[0].version != kDataVersion)
    return Status::Corruption("damaged: meta page 0 gives LMDB data version " + Str(metas[0].version) +
                              " (seer reads version " + Str(kDataVersion) + ")");
  const uint32_t page_size = metas[0].page_size();
  if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) != 0)
    return Status::Corruption("damaged: meta page 0 gives a page size of " + Str(page_size));
  s = ReadMeta(fd, page_size, &metas[1]);
  if (!s.ok()) return s;
  for (int i = 0; i < 2; ++i) {
    const Meta& m = metas[i];
    const std::string name = "meta page " + Str(i);
    if (!(m.page_flags & kMeta) || m.magic != kMagic || m.version != kDataVersion)
      return Status::Corruption("damaged: " + name + " is not an LMDB meta page");
    if (m.page_size() != page_size)
      return Status::Corruption("damaged: " + name + " gives a page size of " + Str(m.page_size()) + ", meta page 0 " +
                                Str(page_size));
    // Commit N writes meta page N % 2 (both start at 0): a page holding the
    // other parity's commit, or two commits not one apart, is damage.
    if (m.txnid % 2 != static_cast<uint64_t>(i) && m.txnid != 0)
      return Status::Corruption("damaged: " + name + " holds commit " + Str(m.txnid) + ", of the other meta page");
  }
  const uint64_t t0 = metas[0].txnid, t1 = metas[1].txnid;
  if (!(t0 + 1 == t1 || t1 + 1 == t0 || (t0 == 0 && t1 == 0)))
    return Status::Corruption("damaged: the meta pages hold commits " + Str(t0) + " and " + Str(t1) +
                              ", which do not follow each other");
  // The same choice as mdb_env_pick_meta: the later commit.
  const Meta& m = metas[t0 < t1 ? 1 : 0];
  if (m.main_db.flags != 0 || m.main_db.pad != 0)
    return Status::Corruption("damaged: meta page " + Str(t0 < t1 ? 1 : 0) + " has unexpected flags");
  if (m.last_page < 1 || m.last_page >= (uint64_t{1} << 48))
    return Status::Corruption("damaged: meta page " + Str(t0 < t1 ? 1 : 0) + " gives a last page of " +
                              Str(m.last_page));
  const uint64_t needed = (m.last_page + 1) * page_size;
  if (file_size < needed)
    return Status::Corruption("truncated: the file has " + Str(file_size) + " bytes, its last commit needs " +
                              Str(needed));

  Walker walker(fd, page_size, m.last_page + 1);
  s = walker.WalkTree("", m.main_db);
  if (!s.ok()) return s;
  for (const auto& [name, db] : walker.tables()) {
    s = walker.WalkTree(name, db);
    if (!s.ok()) return s;
  }
  layout->page_size = page_size;
  layout->last_page = m.last_page;
  layout->txnid = m.txnid;
  layout->pages_read = walker.pages_read();
  return Status::Ok();
}

}  // namespace seer::store
