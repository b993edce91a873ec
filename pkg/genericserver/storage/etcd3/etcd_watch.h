#pragma once
// Watches of the etcd backend: streams of /v3/watch through HttpClient that resume on
// another endpoint, from the revision after the last one delivered, when their
// connection breaks. See etcd_kv.h.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "pkg/genericserver/storage/kv.h"

namespace storage::etcd3 {

class HttpClient;

// Starts a watch on client and resolves once etcd confirmed it (or refused it, or no
// endpoint answered). compact_revision is the backend's newest known compaction, which the
// watch raises when etcd reports a newer one; the watch holds it, never the backend. The
// client must outlive the start; a stream that outlives the client ends with it.
Awaitable<Result<std::unique_ptr<KVWatch>>> StartWatch(
    HttpClient* client, std::string key, KVWatchOptions options,
    std::shared_ptr<std::atomic<int64_t>> compact_revision);

// Raises newest to revision unless it is there already.
void NoteCompacted(std::atomic<int64_t>& newest, int64_t revision);

}  // namespace storage::etcd3
