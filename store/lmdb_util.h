// Small helpers over the LMDB C API shared by the trace writer and reader.
#pragma once

#include <lmdb.h>

#include <string>
#include <string_view>

#include "seer/status.h"

namespace seer::store::lmdb {

// An LMDB return code as a Status; `what` says which operation failed.
inline Status Check(int rc, const std::string& what) {
  if (rc == MDB_SUCCESS) return Status::Ok();
  std::string msg = what + ": " + mdb_strerror(rc);
  if (rc == ENOSPC) return Status::IOError(what + ": disk full (no space left on device)");
  if (rc == EACCES || rc == EPERM) return Status::Permission(msg);
  if (rc == ENOENT) return Status::NotFound(msg);
  if (rc == MDB_INVALID || rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND || rc == MDB_VERSION_MISMATCH)
    return Status::Corruption(msg);
  return Status::IOError(msg);
}

inline MDB_val Val(std::string_view s) { return MDB_val{s.size(), const_cast<char*>(s.data())}; }
inline std::string_view View(const MDB_val& v) {
  return std::string_view(static_cast<const char*>(v.mv_data), v.mv_size);
}

// Aborts the transaction unless it was committed or released.
class TxnGuard {
 public:
  explicit TxnGuard(MDB_txn* txn) : txn_(txn) {}
  ~TxnGuard() {
    if (txn_) mdb_txn_abort(txn_);
  }
  TxnGuard(const TxnGuard&) = delete;
  TxnGuard& operator=(const TxnGuard&) = delete;
  MDB_txn* get() const { return txn_; }
  int Commit() {
    int rc = mdb_txn_commit(txn_);
    txn_ = nullptr;  // a failed commit frees the transaction too
    return rc;
  }

 private:
  MDB_txn* txn_;
};

}  // namespace seer::store::lmdb
