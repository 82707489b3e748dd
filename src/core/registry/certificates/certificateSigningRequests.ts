/**
 * CertificateSigningRequest strategies (kube's pkg/registry/certificates/
 * certificates/strategy.go): a create records who asked (spec.username, uid,
 * groups, extra, from the requesting user, never from the body) and starts
 * with an empty status; a request is immutable after creation except
 * through its subresources, and each subresource writes one concern.
 * - main resource: spec and status stay as stored;
 * - /approval: only status.conditions (Approved, Denied, ...) change;
 * - /status: everything in status but the Approved and Denied conditions,
 *   which keep their stored instances (adding or removing one is left for
 *   validation to refuse).
 * Conditions written without timestamps get lastUpdateTime now, and a
 * lastTransitionTime carried over from a stored condition of the same type
 * and status (else now).
 */
import { formatTime, type KubeObject } from '../../api/types';
import type { ResourceStrategy, StrategyContext } from '../generic/strategy';
import { checkCertificateRequests } from '../../validation/certificates';

type Condition = Record<string, unknown>;

const conditionsOf = (csr: KubeObject): Condition[] => {
  const status = csr['status'] as { conditions?: unknown } | undefined;
  return Array.isArray(status?.conditions) ? (status.conditions as Condition[]) : [];
};

function statusOf(csr: KubeObject): Record<string, unknown> {
  const s = csr['status'];
  if (s && typeof s === 'object' && !Array.isArray(s)) return s as Record<string, unknown>;
  csr['status'] = {};
  return csr['status'] as Record<string, unknown>;
}

/** populateConditionTimestamps. May mutate obj's conditions. */
function populateConditionTimestamps(obj: KubeObject, old: KubeObject, ctx: StrategyContext): void {
  const now = formatTime(ctx.now);
  for (const c of conditionsOf(obj)) {
    if (!c['lastUpdateTime']) c['lastUpdateTime'] = now;
    if (!c['lastTransitionTime']) {
      const same = conditionsOf(old).find((o) => o['type'] === c['type'] && o['status'] === c['status'] && o['lastTransitionTime']);
      c['lastTransitionTime'] = same ? same['lastTransitionTime'] : now;
    }
  }
}

/** preserveConditionInstances: the stored instances of `type`, when the write kept their number. */
function preserveConditionInstances(obj: KubeObject, old: KubeObject, type: string): void {
  const oldOnes = conditionsOf(old).filter((c) => c['type'] === type);
  const conditions = conditionsOf(obj);
  const newIndices = conditions.flatMap((c, i) => (c['type'] === type ? [i] : []));
  if (oldOnes.length !== newIndices.length) return;
  newIndices.forEach((at, i) => (conditions[at] = structuredClone(oldOnes[i]!)));
}

function keepSpec(obj: KubeObject, old: KubeObject): void {
  if (old['spec'] === undefined) delete obj['spec'];
  else obj['spec'] = structuredClone(old['spec']);
}

export const certificateSigningRequestStrategy: Partial<ResourceStrategy> = {
  // The request's signature is verified through WebCrypto before the (synchronous) validation reads the verdict.
  // Called, not referenced: validation is a part the service worker loads on first use, never at start.
  checkAsync: (obj, old, ctx) => checkCertificateRequests(obj, old, ctx),
  prepareForCreate(obj, ctx) {
    const spec = (obj['spec'] && typeof obj['spec'] === 'object' ? obj['spec'] : (obj['spec'] = {})) as Record<string, unknown>;
    for (const k of ['username', 'uid', 'groups', 'extra']) delete spec[k];
    const user = ctx.user;
    if (user) {
      if (user.username) spec['username'] = user.username;
      if (user.uid) spec['uid'] = user.uid;
      if (user.groups.length) spec['groups'] = [...user.groups];
      if (user.extra && Object.keys(user.extra).length) spec['extra'] = structuredClone(user.extra);
    }
  },
  // Runs after the generic status handling (which keeps the stored status on the main resource and spec on /status).
  prepareForUpdate(obj, old, ctx) {
    keepSpec(obj, old);
    if (ctx.subresource === 'approval') {
      populateConditionTimestamps(obj, old, ctx);
      const conditions = conditionsOf(obj);
      obj['status'] = structuredClone(old['status'] ?? {});
      if (conditions.length) statusOf(obj)['conditions'] = conditions;
      else delete statusOf(obj)['conditions'];
    } else if (ctx.subresource === 'status') {
      preserveConditionInstances(obj, old, 'Approved');
      preserveConditionInstances(obj, old, 'Denied');
      populateConditionTimestamps(obj, old, ctx);
    }
  },
};
