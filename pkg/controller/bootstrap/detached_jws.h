#pragma once
// The detached JWS that signs the cluster-info ConfigMap's kubeconfig for one bootstrap
// token, as k8s.io/cluster-bootstrap's ComputeDetachedSignature makes it (RFC 7515
// appendix F: a compact JWS with the payload left out):
//   base64url({"alg":"HS256","kid":"<token-id>"}) + ".." + base64url(HMAC-SHA256(
//       key = <token-secret>, base64url(header) + "." + base64url(content)))
// base64url without padding. Upstream pads a secret shorter than 32 bytes with zero
// bytes to 32 for go-jose; HMAC pads its key with zeros to the block size anyway, so the
// signature is the same without. kubeadm checks a signature by computing it again.
// Pure (OpenSSL's HMAC).

#include <expected>
#include <string>
#include <string_view>

namespace controller::bootstrap {

std::expected<std::string, std::string> ComputeDetachedSignature(std::string_view content,
                                                                 std::string_view token_id,
                                                                 std::string_view token_secret);

}  // namespace controller::bootstrap
