"""Integration tests: the static cost limits of x-kubernetes-validations.

kubectl (v1.32) applies CRDs whose CEL rules are estimated before they are
stored, as upstream kube-apiserver 1.32 does: a rule over an unbounded list of
unbounded strings is refused with upstream's 422 (the rule's own limit, its
share of the schema's total, the total), the same rule with maxItems and
maxLength is accepted, becomes Established and validates custom resources,
and an update that adds an expensive rule is refused and leaves the stored
CRD as it was.

Run with:
    cd test/integration && KAS_BINARY=.../kube-apiserver \\
        /usr/bin/python3 -m unittest test_crd_cost -v
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_crd import CRD_PREFIX, CRDTestCase  # noqa: E402

# The rule of every manifest here: spec.users must hold lower-case names.
RULE = "self.all(x, x.matches('^[a-z]+$'))"

HINT = ("(try simplifying the rule, or adding maxItems, maxProperties, and "
        "maxLength where arrays, maps, and strings are declared)")

# An added property whose rule runs over an unbounded list of strings.
EXPENSIVE_PROPERTY = """\
              aliases:
                type: array
                items:
                  type: string
                x-kubernetes-validations:
                - rule: "self.all(a, a.size() > 0 && a.lowerAscii() == a)"
"""

SCHEMA = "spec.validation.openAPIV3Schema"
USERS_RULE = (SCHEMA + ".properties[spec].properties[users]"
              ".x-kubernetes-validations[0].rule")
ALIASES_RULE = (SCHEMA + ".properties[spec].properties[aliases]"
                ".x-kubernetes-validations[0].rule")


def manifest(group, bounded, extra_property=""):
    """The Account CRD of group, spec.users bounded (maxItems 10 of
    maxLength 10) or not; extra_property is YAML added to spec's
    properties."""
    max_items = "                maxItems: 10\n" if bounded else ""
    max_length = "                  maxLength: 10\n" if bounded else ""
    return """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: accounts.%s
spec:
  group: %s
  scope: Namespaced
  names:
    plural: accounts
    singular: account
    kind: Account
    listKind: AccountList
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              users:
                type: array
%s                items:
                  type: string
%s                x-kubernetes-validations:
                - rule: "%s"
                  message: users must be lower-case names
%s""" % (group, group, max_items, max_length, RULE, extra_property)


def over_budget(rule_path):
    """kubectl's rendering of the 422 for one rule far over every limit."""
    return [rule_path + ": Forbidden: estimated rule cost exceeds budget by "
            "factor of more than 100x " + HINT,
            rule_path + ": Forbidden: contributed to estimated rule cost "
            "total exceeding cost limit for entire OpenAPIv3 schema",
            SCHEMA + ": Forbidden: x-kubernetes-validations estimated rule "
            "cost total for entire OpenAPIv3 schema exceeds budget by factor "
            "of more than 100x " + HINT]


def invalid_crd(group, causes):
    return ('The CustomResourceDefinition "accounts.%s" is invalid: \n'
            % group + "".join("* %s\n" % c for c in causes))


class CRDCostTests(CRDTestCase):
    namespaces = ("cost",)

    def created(self, group, bounded=True):
        path = self.kubectl.write(manifest(group, bounded))
        self.assertEqual(self.ok("apply", "-f", path),
                         "%saccounts.%s created\n" % (CRD_PREFIX, group))
        self.wait_established("accounts." + group)

    def test_unbounded_list_refused(self):
        group = "refused.cost.example.com"
        path = self.kubectl.write(manifest(group, bounded=False))
        self.fails("apply", "-f", path,
                   stderr=invalid_crd(group, over_budget(USERS_RULE)))
        self.crd_obj("accounts." + group, expect=404)

    def test_bounded_list_accepted(self):
        group = "bounded.cost.example.com"
        self.created(group)
        self.wait_served({"metadata": {"name": "accounts." + group},
                          "spec": {"group": group,
                                   "names": {"plural": "accounts"},
                                   "versions": [{"name": "v1",
                                                 "served": True}]}})
        # The rule it was accepted with runs on custom resources.
        cr = """\
apiVersion: %s/v1
kind: Account
metadata:
  name: a1
  namespace: cost
spec:
  users: [alice, %s]
"""
        self.fails("apply", "-f", self.kubectl.write(cr % (group, "Bob")),
                   stderr='The Account "a1" is invalid: spec.users: Invalid '
                          'value: "array": users must be lower-case names\n')
        self.assertEqual(
            self.ok("apply", "-f", self.kubectl.write(cr % (group, "bob"))),
            "account.%s/a1 created\n" % group)

    def test_update_adding_expensive_rule_refused(self):
        group = "update.cost.example.com"
        self.created(group)
        before = self.crd_obj("accounts." + group)

        update = self.kubectl.write(manifest(group, True, EXPENSIVE_PROPERTY))
        self.fails("apply", "-f", update,
                   stderr=invalid_crd(group, over_budget(ALIASES_RULE)))
        after = self.crd_obj("accounts." + group)
        self.assertEqual(after["metadata"]["resourceVersion"],
                         before["metadata"]["resourceVersion"])
        self.assertNotIn("aliases", after["spec"]["versions"][0]["schema"]
                         ["openAPIV3Schema"]["properties"]["spec"]
                         ["properties"])


if __name__ == "__main__":
    unittest.main()
