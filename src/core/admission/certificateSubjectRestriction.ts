/**
 * The CertificateSubjectRestriction admission plugin
 * (plugin/pkg/admission/certificates/subjectrestriction), on by default: a
 * CertificateSigningRequest created for kubernetes.io/kube-apiserver-client
 * may not ask for the system:masters group (a subject organization), which
 * would bypass every authorizer.
 */
import type { KubeObject } from '../api/types';
import { newForbidden } from '../errors';
import { parseCSR } from '../validation/certificates';

const csrGroupResource = { group: 'certificates.k8s.io', resource: 'certificatesigningrequests' };
const kubeAPIServerClientSignerName = 'kubernetes.io/kube-apiserver-client';

/** Validates one create of certificatesigningrequests (not its subresources). Throws Forbidden. */
export function admitCertificateSubjectRestriction(attrs: { group: string; resource: string; subresource: string; name: string; object?: KubeObject }): void {
  if (attrs.group !== csrGroupResource.group || attrs.resource !== csrGroupResource.resource || attrs.subresource !== '' || !attrs.object) return;
  const spec = attrs.object['spec'] as { signerName?: unknown; request?: unknown } | undefined;
  if (spec?.signerName !== kubeAPIServerClientSignerName) return;
  let organizations: string[];
  try {
    organizations = parseCSR(typeof spec.request === 'string' ? atob(spec.request) : '').subjectName.getField('2.5.4.10');
  } catch (e) {
    throw newForbidden(csrGroupResource, attrs.name, `failed to parse CSR: ${(e as Error).message}`);
  }
  if (organizations.includes('system:masters')) {
    throw newForbidden(csrGroupResource, attrs.name, `use of ${kubeAPIServerClientSignerName} signer with system:masters group is not allowed`);
  }
}
