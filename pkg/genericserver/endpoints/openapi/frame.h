#pragma once
// What every served document shares: the OpenAPI version, info and security scheme.

#include <nlohmann/json_fwd.hpp>

namespace endpoints::openapi {

// {"openapi":"3.0.0","info":...,"paths":paths,"components":{"schemas":schemas,...}}.
// Built-in documents are titled "Kubernetes" with the server's release ("v1.32.0") and carry
// the BearerToken scheme; documents of custom resources only are titled as the
// apiextensions builder titles them ("Kubernetes CRD Swagger", "v0.1.0") and carry none.
nlohmann::json NewDocument(nlohmann::json paths, nlohmann::json schemas, bool custom_resources);

}  // namespace endpoints::openapi
