/**
 * The CertificateApproval and CertificateSigning admission plugins
 * (plugin/pkg/admission/certificates/approval and signing): writing a
 * CertificateSigningRequest's /approval needs the `approve` verb, and
 * changing its status.certificate or status.conditions through /status the
 * `sign` verb, on the `signers` resource of certificates.k8s.io named after
 * the request's signerName or its domain wildcard (`example.com/*`), as
 * certificates.IsAuthorizedForSignerName asks the authorizer.
 */
import type { Authorizer } from '../auth/authorizer/types';
import type { UserInfo } from '../auth/user';
import { newForbidden } from '../errors';
import type { KubeObject } from '../api/types';
import { jsonEqual } from '../api/equality';

const csrGroupResource = { group: 'certificates.k8s.io', resource: 'certificatesigningrequests' };

async function allowed(authorizer: Authorizer, user: UserInfo, verb: string, name: string): Promise<boolean> {
  const result = await authorizer.authorize({
    user,
    verb,
    isResourceRequest: true,
    path: '',
    namespace: '',
    apiGroup: 'certificates.k8s.io',
    apiVersion: '*',
    resource: 'signers',
    subresource: '',
    name,
  });
  return result.decision === 'Allow';
}

/** IsAuthorizedForSignerName: the signer itself, then `<domain>/*`. */
export async function isAuthorizedForSignerName(authorizer: Authorizer, user: UserInfo, verb: string, signerName: string): Promise<boolean> {
  if (await allowed(authorizer, user, verb, signerName)) return true;
  return allowed(authorizer, user, verb, `${signerName.split('/')[0]}/*`);
}

/** Validates one write; only updates of certificatesigningrequests/approval are checked. Throws Forbidden. */
export async function admitCertificateApproval(
  authorizer: Authorizer,
  attrs: { group: string; resource: string; subresource: string; name: string; object?: KubeObject; user: UserInfo },
): Promise<void> {
  if (attrs.subresource !== 'approval' || attrs.group !== csrGroupResource.group || attrs.resource !== csrGroupResource.resource || !attrs.object) return;
  const spec = attrs.object['spec'] as { signerName?: unknown } | undefined;
  const signerName = typeof spec?.signerName === 'string' ? spec.signerName : '';
  if (!(await isAuthorizedForSignerName(authorizer, attrs.user, 'approve', signerName))) {
    throw newForbidden(csrGroupResource, attrs.name, `user not permitted to approve requests with signerName ${JSON.stringify(signerName)}`);
  }
}

const statusField = (obj: KubeObject | undefined, field: string): unknown => (obj?.['status'] as Record<string, unknown> | undefined)?.[field];

/** CertificateSigning: a /status update that changes the certificate or the conditions needs `sign` on the stored signer. */
export async function admitCertificateSigning(
  authorizer: Authorizer,
  attrs: { group: string; resource: string; subresource: string; name: string; object?: KubeObject; oldObject?: KubeObject; user: UserInfo },
): Promise<void> {
  if (attrs.subresource !== 'status' || attrs.group !== csrGroupResource.group || attrs.resource !== csrGroupResource.resource || !attrs.object || !attrs.oldObject) return;
  const { object, oldObject } = attrs;
  if (statusField(object, 'certificate') === statusField(oldObject, 'certificate') && jsonEqual(statusField(object, 'conditions') ?? [], statusField(oldObject, 'conditions') ?? [])) return;
  const spec = oldObject['spec'] as { signerName?: unknown } | undefined;
  const signerName = typeof spec?.signerName === 'string' ? spec.signerName : '';
  if (!(await isAuthorizedForSignerName(authorizer, attrs.user, 'sign', signerName))) {
    throw newForbidden(csrGroupResource, attrs.name, `user not permitted to sign requests with signerName ${JSON.stringify(signerName)}`);
  }
}
