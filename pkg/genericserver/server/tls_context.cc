// TLS for the listener: the server context and what a handshake learned of the client.
#include "pkg/genericserver/server/tls_context.h"

#include <openssl/err.h>
#include <openssl/x509.h>

namespace genericserver {
namespace {

namespace ssl = boost::asio::ssl;

std::string OpenSslError() {
  unsigned long code = ERR_get_error();
  if (code == 0) return "unknown error";
  char buf[256];
  ERR_error_string_n(code, buf, sizeof buf);
  ERR_clear_error();
  return buf;
}

// Offers http/1.1 only; a client that wants nothing else (h2 only) gets no ALPN.
int SelectAlpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
               unsigned int inlen, void*) {
  static const unsigned char kHttp11[] = "http/1.1";
  for (unsigned int i = 0; i < inlen;) {
    unsigned int len = in[i];
    if (i + 1 + len > inlen) break;
    if (len == 8 && std::memcmp(in + i + 1, kHttp11, 8) == 0) {
      *out = in + i + 1;
      *outlen = 8;
      return SSL_TLSEXT_ERR_OK;
    }
    i += 1 + len;
  }
  return SSL_TLSEXT_ERR_NOACK;
}

// Verification happens during the handshake but never fails it: the authenticator
// decides what an unverified certificate means (401), as upstream does.
int AcceptAnyPeer(int, X509_STORE_CTX*) { return 1; }

std::vector<std::string> NameEntries(X509_NAME* name, int nid) {
  std::vector<std::string> out;
  for (int i = X509_NAME_get_index_by_NID(name, nid, -1); i >= 0;
       i = X509_NAME_get_index_by_NID(name, nid, i)) {
    ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i));
    unsigned char* utf8 = nullptr;
    int len = ASN1_STRING_to_UTF8(&utf8, data);
    if (len >= 0) {
      out.emplace_back(reinterpret_cast<char*>(utf8), static_cast<size_t>(len));
      OPENSSL_free(utf8);
    }
  }
  return out;
}

}  // namespace

std::expected<CAStore, std::string> LoadCAStore(const std::vector<std::string>& files,
                                                const std::string& what) {
  CAStore store(X509_STORE_new());
  for (const std::string& file : files) {
    if (X509_STORE_load_file(store.get(), file.c_str()) != 1) {
      return std::unexpected("failed to load " + what + " file " + file + ": " + OpenSslError());
    }
  }
  X509_STORE_set_purpose(store.get(), X509_PURPOSE_SSL_CLIENT);
  return store;
}

std::expected<std::unique_ptr<ssl::context>, std::string> MakeTlsContext(
    const SecureServingInfo& info) {
  auto ctx = std::make_unique<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = ctx->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_options(native, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (SSL_CTX_use_certificate_chain_file(native, info.cert_file.c_str()) != 1) {
    return std::unexpected("failed to load serving certificate " + info.cert_file + ": " +
                           OpenSslError());
  }
  if (SSL_CTX_use_PrivateKey_file(native, info.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return std::unexpected("failed to load serving key " + info.key_file + ": " + OpenSslError());
  }
  if (SSL_CTX_check_private_key(native) != 1) {
    return std::unexpected("serving key " + info.key_file + " does not match certificate " +
                           info.cert_file);
  }
  auto store = LoadCAStore(info.client_ca_files, "client CA");
  if (!store) return std::unexpected(store.error());
  SSL_CTX_set0_verify_cert_store(native, store->release());  // takes ownership
  // Request a certificate with an empty list of acceptable CAs: Go clients then send
  // whatever certificate they have.
  SSL_CTX_set_verify(native, SSL_VERIFY_PEER, AcceptAnyPeer);
  SSL_CTX_set_alpn_select_cb(native, SelectAlpn, nullptr);
  static const unsigned char kSessionContext[] = "kube-apiserver";
  SSL_CTX_set_session_id_context(native, kSessionContext, sizeof kSessionContext - 1);
  return ctx;
}

std::shared_ptr<const TlsPeer> ExtractPeer(SSL* ssl, X509_STORE* request_header) {
  auto peer = std::make_shared<TlsPeer>();
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (!cert) return peer;
  peer->presented = true;
  long result = SSL_get_verify_result(ssl);
  peer->verified = result == X509_V_OK;
  if (!peer->verified) peer->verify_error = X509_verify_cert_error_string(result);
  X509_NAME* subject = X509_get_subject_name(cert);
  auto cns = NameEntries(subject, NID_commonName);
  if (!cns.empty()) peer->common_name = cns.front();
  peer->organizations = NameEntries(subject, NID_organizationName);
  if (request_header) {
    // The chain the client sent (beyond its leaf) may hold intermediates.
    X509_STORE_CTX* ctx = X509_STORE_CTX_new();
    if (ctx && X509_STORE_CTX_init(ctx, request_header, cert, SSL_get_peer_cert_chain(ssl)) == 1) {
      peer->request_header_verified = X509_verify_cert(ctx) == 1;
      if (!peer->request_header_verified) {
        peer->request_header_verify_error =
            X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx));
      }
    } else {
      peer->request_header_verify_error =
          "verifying against the request-header CAs: " + OpenSslError();
    }
    X509_STORE_CTX_free(ctx);
    ERR_clear_error();
  }
  X509_free(cert);
  return peer;
}

}  // namespace genericserver
