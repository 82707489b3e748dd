/**
 * The CertificateApproval admission plugin (plugin/pkg/admission/certificates/
 * approval): writing a CertificateSigningRequest's /approval needs the
 * `approve` verb on the `signers` resource of certificates.k8s.io, named
 * after the request's signerName or its domain wildcard (`example.com/*`),
 * as certificates.IsAuthorizedForSignerName asks the authorizer.
 */
import type { Authorizer } from '../auth/authorizer/types';
import type { UserInfo } from '../auth/user';
import { newForbidden } from '../errors';
import type { KubeObject } from '../api/types';

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
