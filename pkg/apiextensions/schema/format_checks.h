#pragma once
// The individual format checks behind ValidFormat (formats.h), each reproducing the Go function
// upstream's registry calls. Internal to the schema library.

#include <string_view>

namespace apiextensions::schema::formats {

// net.ParseIP (Go 1.23, netip rules: no leading zeros in IPv4 fields, at most four hex digits
// per IPv6 group, no zone).
bool ParseIP(std::string_view s);
// k8s.io/utils/net.ParseIPSloppy (Go 1.16's parser: IPv4 fields may have leading zeros).
bool ParseIPSloppy(std::string_view s);
// k8s.io/utils/net.ParseCIDRSloppy.
bool ParseCIDRSloppy(std::string_view s);
// net.ParseMAC: 6, 8 or 20 octets as xx:xx.., xx-xx.. or xxxx.xxxx...
bool ParseMAC(std::string_view s);
// net/url.ParseRequestURI succeeds.
bool IsRequestURI(std::string_view s);
// net/mail.ParseAddress succeeds with a non-empty address.
bool IsEmail(std::string_view s);

}  // namespace apiextensions::schema::formats
