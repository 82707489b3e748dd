/**
 * --enable-admission-plugins / --disable-admission-plugins: kube-apiserver's
 * plugin names are accepted (an unknown one stops the host, as it does
 * kube-apiserver); NodeRestriction, off by default as upstream, and
 * CertificateSubjectRestriction, LimitRanger, PodSecurity, ServiceAccount,
 * Priority, DefaultTolerationSeconds, DefaultStorageClass,
 * StorageObjectInUseProtection, DefaultIngressClass and ResourceQuota, on
 * by default as upstream, are the ones whose switches change kubesim's
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

type DefaultOnPlugin = 'CertificateSubjectRestriction' | 'LimitRanger' | 'PodSecurity' | 'ServiceAccount' | 'Priority' | 'DefaultTolerationSeconds'
  | 'DefaultStorageClass' | 'StorageObjectInUseProtection' | 'DefaultIngressClass' | 'ResourceQuota';

/** Whether a plugin kube-apiserver enables by default runs: not disabled. */
export function defaultOnPluginEnabled(name: DefaultOnPlugin, disable: readonly string[] = []): boolean {
  return !disable.includes(name);
}

/** The core's switches for its default-on plugins (createApiServer's admissionPlugins). */
export function defaultAdmissionPlugins(disable: readonly string[] = []) {
  const on = (name: DefaultOnPlugin) => defaultOnPluginEnabled(name, disable);
  return {
    limitRanger: on('LimitRanger'),
    serviceAccount: on('ServiceAccount'),
    priority: on('Priority'),
    defaultTolerationSeconds: on('DefaultTolerationSeconds'),
    defaultStorageClass: on('DefaultStorageClass'),
    storageObjectInUseProtection: on('StorageObjectInUseProtection'),
    defaultIngressClass: on('DefaultIngressClass'),
    resourceQuota: on('ResourceQuota'),
  };
}
