#pragma once
// The value validation of a custom resource against its schema: kube-openapi's
// validate.SchemaValidator (k8s.io/kube-openapi pkg/validation/validate, the version Kubernetes
// 1.32 vendors) with strfmt.Default and the CRD's unsupported formats stripped, its result
// converted to field errors by apiextensions-apiserver's kubeOpenAPIResultToFieldErrors.
//
// What this reproduces (read in kube-openapi validate/{schema,type,validator,object_validator,
// slice_validator,schema_props,values,result}.go and errors/schema.go):
//  - per schema node, the validators run in this order, each only where it applies: type (when
//    the node has a type or a kept format), allOf/anyOf/oneOf/not, string (maxLength,
//    minLength, pattern: the first failure only), format, number (multipleOf, minimum,
//    maximum), array (items, then minItems, maxItems, uniqueItems), enum, object
//    (minProperties, maxProperties, additionalProperties, properties, required). A null value
//    gets only the type and enum checks. A failing check does not stop the others.
//  - paths as kube-openapi builds them: "spec.replicas", "spec.list[0].name"; a property of the
//    root has no leading dot, but additionalProperties keys and required fields are appended
//    with "." (".foo" at the root). The field path drops one leading "."; an empty path (the
//    root itself) is printed as upstream's nil field.Path: "<nil>".
//  - messages: "<path> in body must be of type integer: \"string\"", "... should be at least 3
//    chars long", "... should match '<pattern>'", "... should be less than or equal to 10", ...;
//    errors repeated with the same message are reported once (Result.AddErrors).
//  - anyOf / oneOf keep the failures of the alternative with the most successful checks
//    (MatchCount), after a composite error; allOf adds its composite error after the failures.
//    Composite errors are not *errors.Validation upstream, so they become
//    `<nil>: Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found
//    none valid`.
//  - the conversion: required -> Required value; enum -> Unsupported value with the allowed
//    values (strings as is, others JSON-encoded); maxLength -> Too long; maxItems and
//    maxProperties -> Too many; type and format failures -> FieldValueTypeInvalid (printed
//    "Invalid value") with the bad value being the value's type name; everything else ->
//    Invalid value with the value printed as field.ErrorBody prints it.
//  - numbers: an integral JSON literal is an int64, anything else a float64 (unstructured JSON);
//    "type: integer" accepts a float64 with an integral value (2.0); bounds and multipleOf for
//    an int64 value are truncated to int64 first (as MaximumNativeType does), for a float64
//    value compared as floats.
//
// Deviations: error order among the properties of one object (and among additionalProperties
// keys) is sorted by name where upstream follows Go's random map order; an integer value with a
// multipleOf below 1 (upstream divides by int64(0) and panics) is checked as a float; a pattern
// that fails to compile reports Go's message shape with this engine's reason.

#include <nlohmann/json_fwd.hpp>

#include "pkg/apiextensions/schema/structural.h"

namespace apiextensions::schema {

FieldErrors ValidateValue(const nlohmann::json& schema, const nlohmann::json& value);

}  // namespace apiextensions::schema
