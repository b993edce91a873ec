#pragma once
// Admission plugins that fill in a class a new object names none of (upstream's
// DefaultStorageClass and DefaultIngressClass, mutating phase, creates only):
//  - DefaultStorageClass: a PersistentVolumeClaim without spec.storageClassName (absent,
//    not "") gets the StorageClass annotated storageclass.kubernetes.io/is-default-class
//    (or its beta annotation) "true", the newest when several are (then by name);
//  - DefaultIngressClass: an Ingress without spec.ingressClassName nor the
//    kubernetes.io/ingress.class annotation gets the IngressClass annotated
//    ingressclass.kubernetes.io/is-default-class "true"; several such classes refuse it
//    (403 "... Internal error occurred: 2 default IngressClasses were found, only 1 allowed").
// And TaintNodesByCondition: a new Node gets the node.kubernetes.io/not-ready:NoSchedule
// taint unless it has it, until its kubelet says it is ready. And
// PersistentVolumeClaimResize (validating): a claim's storage request may grow only when it
// is Bound and its StorageClass (the same before and after) has allowVolumeExpansion. And
// StorageObjectInUseProtection (mutating): new claims get the kubernetes.io/pvc-protection
// finalizer and new volumes kubernetes.io/pv-protection, which the controller manager's
// protection controllers remove once nothing uses them.

#include "pkg/genericserver/admission/plugin.h"
#include "pkg/genericserver/admission/stores.h"

namespace plugin::admission {

::admission::PluginPtr NewDefaultStorageClass(std::shared_ptr<const ::admission::Stores> stores);
::admission::PluginPtr NewDefaultIngressClass(std::shared_ptr<const ::admission::Stores> stores);
::admission::PluginPtr NewTaintNodesByCondition();
::admission::PluginPtr NewPersistentVolumeClaimResize(
    std::shared_ptr<const ::admission::Stores> stores);
::admission::PluginPtr NewStorageObjectInUseProtection();

}  // namespace plugin::admission
