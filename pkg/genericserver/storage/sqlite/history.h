#pragma once
// Reads of the sqlite store as of a past revision, without an index on (key, revision):
// writes stay cheap (no random-key index to maintain besides `current`), and a read of
// the past costs in proportion to what changed since, plus the keys it returns.
//
// The state at revision R, for a key:
//  - unchanged since R: its `current` row;
//  - changed since R: follow prev_revision back from its current row, or from one of
//    its deletion markers after R, to the first version at or below R (if any).
// Compaction to C <= R keeps every version such a walk can reach.

#include <cstdint>
#include <string>

#include "pkg/genericserver/storage/kv.h"

namespace storage::sqlite {

class Connection;

// Range semantics as in KV::Range; end "" means the single key. The caller holds a read
// transaction and checked that `at` is not compacted and older than the newest revision.
Result<RangeResult> RangeAt(Connection& db, const std::string& key, const std::string& end,
                            int64_t at, int64_t limit, bool count_only);

}  // namespace storage::sqlite
