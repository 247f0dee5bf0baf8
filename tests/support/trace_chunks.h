// The stored chunks of a trace file, byte for byte: for tests that check that
// two ways of writing the same events (ChunkEncoder::AddRepeat against
// AddRun, RingMerger's repeats on and off) give the very same file contents.
#pragma once

#include <lmdb.h>

#include <string>
#include <vector>

#include "seer/status.h"
#include "store/lmdb_util.h"
#include "store/tables.h"

namespace seer::test {

// Every value of the trace's chunk table, in key order.
inline Status ReadRawChunks(const std::string& path, std::vector<std::string>* chunks) {
  chunks->clear();
  MDB_env* env = nullptr;
  int rc = mdb_env_create(&env);
  if (rc != MDB_SUCCESS) return store::lmdb::Check(rc, "mdb_env_create");
  mdb_env_set_maxdbs(env, 8);
  rc = mdb_env_open(env, path.c_str(), MDB_NOSUBDIR | MDB_NOLOCK | MDB_RDONLY, 0600);
  MDB_txn* txn = nullptr;
  if (rc == MDB_SUCCESS) rc = mdb_txn_begin(env, nullptr, MDB_RDONLY, &txn);
  MDB_dbi dbi = 0;
  if (rc == MDB_SUCCESS) rc = mdb_dbi_open(txn, store::db::kChunks, 0, &dbi);
  MDB_cursor* cursor = nullptr;
  if (rc == MDB_SUCCESS) rc = mdb_cursor_open(txn, dbi, &cursor);
  if (rc == MDB_SUCCESS) {
    MDB_val key, value;
    for (int op = MDB_FIRST; (rc = mdb_cursor_get(cursor, &key, &value, static_cast<MDB_cursor_op>(op))) == MDB_SUCCESS;
         op = MDB_NEXT)
      chunks->emplace_back(store::lmdb::View(value));
    if (rc == MDB_NOTFOUND) rc = MDB_SUCCESS;
    mdb_cursor_close(cursor);
  }
  if (txn != nullptr) mdb_txn_abort(txn);
  mdb_env_close(env);
  return store::lmdb::Check(rc, path + ": reading its chunks");
}

}  // namespace seer::test
