/**
 * --enable-admission-plugins / --disable-admission-plugins: kube-apiserver's
 * plugin names are accepted (an unknown one stops the host, as it does
 * kube-apiserver); NodeRestriction, off by default as upstream, and
 * CertificateSubjectRestriction, LimitRanger, PodSecurity and ResourceQuota,
 * on by default as upstream, are the ones whose switches change kubesim's
 * behaviour. ValidatingAdmissionPolicy is always on, as in kube-apiserver's
 * default set.
 */
const knownPlugins = new Set([
  'AlwaysAdmit', 'AlwaysDeny', 'AlwaysPullImages', 'CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction',
  'ClusterTrustBundleAttest', 'DefaultIngressClass', 'DefaultStorageClass', 'DefaultTolerationSeconds', 'DenyServiceExternalIPs',
  'EventRateLimit', 'ExtendedResourceToleration', 'ImagePolicyWebhook', 'LimitPodHardAntiAffinityTopology', 'LimitRanger',
  'MutatingAdmissionPolicy', 'MutatingAdmissionWebhook', 'NamespaceAutoProvision', 'NamespaceExists', 'NamespaceLifecycle',
  'NodeRestriction', 'OwnerReferencesPermissionEnforcement', 'PersistentVolumeClaimResize', 'PodNodeSelector', 'PodSecurity',
  'PodTolerationRestriction', 'PodTopologyLabels', 'Priority', 'ResourceQuota', 'RuntimeClass', 'ServiceAccount',
  'StorageObjectInUseProtection', 'TaintNodesByCondition', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook',
]);

/** A comma list of plugin names; kube-apiserver's message for an unknown one. */
export function parseAdmissionPlugins(flag: 'enable-admission-plugins' | 'disable-admission-plugins', value: string): string[] {
  const names = value.split(',').map((n) => n.trim()).filter(Boolean);
  for (const n of names) if (!knownPlugins.has(n)) throw new Error(`${flag} plugin ${JSON.stringify(n)} is unknown`);
  return names;
}

/** Whether NodeRestriction runs: enabled and not disabled. */
export function nodeRestrictionEnabled(enable: readonly string[] = [], disable: readonly string[] = []): boolean {
  return enable.includes('NodeRestriction') && !disable.includes('NodeRestriction');
}

/** Whether a plugin kube-apiserver enables by default (CertificateSubjectRestriction, LimitRanger, PodSecurity, ResourceQuota) runs: not disabled. */
export function defaultOnPluginEnabled(name: 'CertificateSubjectRestriction' | 'LimitRanger' | 'PodSecurity' | 'ResourceQuota', disable: readonly string[] = []): boolean {
  return !disable.includes(name);
}
