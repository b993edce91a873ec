// The "uri" format: govalidator.IsRequestURI, i.e. whether Go's net/url.ParseRequestURI accepts
// the text.

#include "pkg/apiextensions/schema/format_checks.h"
#include "pkg/genericserver/apimachinery/gourl/url.h"

namespace apiextensions::schema::formats {

bool IsRequestURI(std::string_view raw) {
  return apimachinery::gourl::Parse(raw, true).has_value();
}

}  // namespace apiextensions::schema::formats
