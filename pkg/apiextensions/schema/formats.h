#pragma once
// String formats in CRD schemas, as Kubernetes 1.32 validates them.
//
// apiextensions-apiserver keeps a schema's "format" only when it is one of its supported
// formats (pkg/apiserver/validation/formats.go, the set introduced at 1.0; the k8s-* formats
// arrived in 1.33): bsonobjectid, uri, email, hostname, ipv4, ipv6, cidr, mac, uuid, uuid3,
// uuid4, uuid5, isbn, isbn10, isbn13, creditcard, ssn, hexcolor, rgbcolor, byte, password,
// date, duration, datetime — compared after removing '-' ("date-time" is "datetime"). Any
// other format (int32, int64, float, double, ...) is stripped and ignored. The checks are
// kube-openapi's strfmt.Default registry: govalidator's (forked), net/mail, net/url,
// k8s.io/utils/net's sloppy IPv4 parsing, and strfmt's own date, date-time and duration.

#include <optional>
#include <string>
#include <string_view>

namespace apiextensions::schema {

// The registry name of a supported format ("date-time" -> "datetime"), nullopt when upstream
// strips the format from the schema.
std::optional<std::string> SupportedFormat(std::string_view format);

// Whether `value` is valid in the supported format `name` (a SupportedFormat result).
bool ValidFormat(std::string_view name, std::string_view value);

}  // namespace apiextensions::schema
