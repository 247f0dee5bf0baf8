// A structural check of an LMDB file, done with plain reads before LMDB maps it.
// LMDB trusts its file: a damaged page number, node offset or value size makes it
// read outside the map (SIGSEGV, SIGBUS) or loop. This walk visits every page a
// read-only transaction of the last commit can reach and checks each field LMDB
// will dereference, so that what passes cannot fault. docs/trace-format.md,
// "Damaged files", says what it checks and what it costs.
#pragma once

#include <cstdint>
#include <string>

#include "seer/status.h"

namespace seer::store {

struct LmdbFileLayout {
  uint32_t page_size = 0;
  uint64_t last_page = 0;   // of the commit LMDB will open
  uint64_t txnid = 0;       // that commit
  uint64_t pages_read = 0;  // branch and leaf pages read by the walk
};

// Checks the LMDB file open as `fd`, `file_size` bytes long: both meta pages, then
// the main tree and every named database in it (page numbers inside the file and
// the commit, page headers, node offsets and key and value sizes inside their
// page, keys in order, overflow runs inside the file, no page reached twice,
// depth and counts as the database records say). Named databases must have no
// flags (plain keys, one value per key), as seer writes them.
// A failure is a Corruption whose message starts "damaged: " or "truncated: ",
// without the file name (the caller adds it).
Status CheckLmdbFile(int fd, uint64_t file_size, LmdbFileLayout* layout);

}  // namespace seer::store
