#pragma once
// One real etcd (/usr/bin/etcd) per test-binary run, started on first use on free
// 127.0.0.1 ports with a fresh data directory, and stopped (TERM, up to 5 s, then KILL)
// and removed at exit. Stores made for the suite share it, each under its own prefix.

#include <memory>
#include <string>

#include "pkg/genericserver/storage/etcd3/etcd_kv.h"
#include "pkg/genericserver/storage/interface.h"

namespace storagetest {

// The client URL ("http://127.0.0.1:PORT") of the run's etcd; starts it on the first
// call. Throws std::runtime_error when etcd cannot be started.
const std::string& EtcdEndpoint();

// The same etcd's https:// URL (it also listens with TLS, and asks https clients for a
// certificate), and files that work with it: the CA, a client certificate and its key.
const std::string& EtcdTlsEndpoint();
storage::etcd3::TlsConfig EtcdTlsFiles();

// A fresh EtcdKV on the run's etcd (or on the endpoints given). Throws on failure.
std::shared_ptr<storage::EtcdKV> OpenEtcdKV();
std::shared_ptr<storage::EtcdKV> OpenEtcdKV(storage::EtcdOptions options);

// A path prefix no other store of this run uses: "/registry-N".
std::string UniqueEtcdPrefix();

// A Store over the run's etcd under a UniqueEtcdPrefix(): for AllBackends().
std::shared_ptr<storage::Interface> EtcdStore();

// A TCP port on 127.0.0.1 that was free a moment ago.
int FreePort();

}  // namespace storagetest
