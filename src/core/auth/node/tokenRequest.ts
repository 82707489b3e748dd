/**
 * NodeRestriction for TokenRequests made by a node
 * (plugin/pkg/admission/noderestriction admitServiceAccount): the token must
 * be bound to a Pod scheduled on that node, and, with the
 * ServiceAccountNodeAudienceRestriction behaviour (on by default since 1.33),
 * ask for an audience the Pod references (a projected service account token
 * volume, or a CSI driver's tokenRequests) or one the node is authorized for
 * with the `request-serviceaccounts-token-audience` verb.
 */
import { isObject, type KubeObject } from '../../api/types';
import { newForbidden, newNotFound } from '../../errors';
import type { Authorizer } from '../authorizer/types';
import type { UserInfo } from '../user';
import { nodeIdentity } from './authorizer';

export interface NodeTokenDeps {
  getPod(namespace: string, name: string): Promise<KubeObject | undefined>;
  getCSIDriver(name: string): Promise<KubeObject | undefined>;
  authorizer: Authorizer;
  /** The API server's own audiences (--api-audiences): every Pod's kube-api-access volume asks for them. */
  apiAudiences: readonly string[];
}

const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** Whether the Pod's volumes reference the audience ('' = the API server's own audiences). */
async function podReferencesAudience(pod: KubeObject, audience: string, deps: NodeTokenDeps): Promise<boolean> {
  const volumes = list(isObject(pod['spec']) ? pod['spec']['volumes'] : undefined);
  for (const v of volumes) {
    const projected = isObject(v['projected']) ? v['projected'] : undefined;
    for (const source of list(projected?.['sources'])) {
      const sat = isObject(source['serviceAccountToken']) ? source['serviceAccountToken'] : undefined;
      if (sat && (typeof sat['audience'] === 'string' ? sat['audience'] : '') === audience) return true;
    }
  }
  for (const v of volumes) {
    const csi = isObject(v['csi']) ? v['csi'] : undefined;
    if (!csi || typeof csi['driver'] !== 'string') continue;
    const driver = await deps.getCSIDriver(csi['driver']);
    const requests = list(driver && isObject(driver['spec']) ? driver['spec']['tokenRequests'] : undefined);
    if (requests.some((r) => (typeof r['audience'] === 'string' ? r['audience'] : '') === audience)) return true;
  }
  return false;
}

/** Throws kube's Forbidden when a node may not have this token; does nothing for other users. */
export async function admitNodeTokenRequest(user: UserInfo, namespace: string, serviceAccount: string, spec: Record<string, unknown>, deps: NodeTokenDeps): Promise<void> {
  const nodeName = nodeIdentity(user);
  if (!nodeName) return;
  const forbid = (message: string) => newForbidden({ group: '', resource: 'serviceaccounts' }, serviceAccount, message);
  const ref = isObject(spec['boundObjectRef']) ? (spec['boundObjectRef'] as Record<string, unknown>) : undefined;
  if (!ref || ref['apiVersion'] !== 'v1' || ref['kind'] !== 'Pod' || !ref['name']) throw forbid('node requested token not bound to a pod');
  if (!ref['uid']) throw forbid('node requested token with a pod binding without a uid');
  const podName = String(ref['name']);
  const pod = await deps.getPod(namespace, podName);
  if (!pod) throw newNotFound({ group: '', resource: 'pods' }, podName);
  if (ref['uid'] !== pod.metadata.uid) {
    throw forbid(`the UID in the bound object reference (${String(ref['uid'])}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  const podNode = isObject(pod['spec']) ? pod['spec']['nodeName'] : undefined;
  if (podNode !== nodeName) throw forbid('node requested token bound to a pod scheduled on a different node');

  const audiences = Array.isArray(spec['audiences']) ? (spec['audiences'] as unknown[]).map(String) : [];
  if (audiences.length > 1) throw forbid('node may only request 0 or 1 audiences');
  const audience = audiences[0] ?? '';
  // The default API audience: what the kube-api-access volume every Pod gets requests.
  if (audience === '' || deps.apiAudiences.includes(audience)) return;
  if (await podReferencesAudience(pod, audience, deps)) return;
  const decision = await deps.authorizer.authorize({
    user, verb: 'request-serviceaccounts-token-audience', isResourceRequest: true, path: '', namespace,
    apiGroup: '', apiVersion: '*', resource: audience, subresource: '', name: serviceAccount,
  });
  if (decision.decision !== 'Allow') {
    throw forbid(`audience ${JSON.stringify(audience)} not found in pod spec volume, system:node:${nodeName} is not authorized to request tokens for this audience`);
  }
}
