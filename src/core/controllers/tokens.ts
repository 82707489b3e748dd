/**
 * The token controller (pkg/controller/serviceaccount/tokens_controller.go):
 * a Secret of type kubernetes.io/service-account-token naming an account in
 * its `kubernetes.io/service-account.name` annotation gets a legacy
 * (non-expiring) token, the namespace and the cluster CA in its data; one
 * naming a missing account, or whose account is deleted, is deleted.
 */
import { isObject, type KubeObject } from '../api/types';
import { legacyClaims } from '../auth/serviceaccount/claims';
import type { ServiceAccountTokens } from '../auth/serviceaccount/tokens';
import { StatusError } from '../errors';
import type { NamespaceControllerDeps } from './namespace';

export const serviceAccountTokenType = 'kubernetes.io/service-account-token';
export const serviceAccountNameAnnotation = 'kubernetes.io/service-account.name';
export const serviceAccountUidAnnotation = 'kubernetes.io/service-account.uid';

function base64(text: string): string {
  let binary = '';
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary);
}

export function startTokensController(deps: NamespaceControllerDeps & { tokens: ServiceAccountTokens }): { stop(): void } {
  const secrets = deps.storeFor(deps.registry.resourceFor('', 'v1', 'secrets')!);
  const accounts = deps.storeFor(deps.registry.resourceFor('', 'v1', 'serviceaccounts')!);
  const stopped = new AbortController();
  const unsubscribes: (() => void)[] = [];

  const ignoreGone = (e: unknown) => {
    if (e instanceof StatusError && (e.code === 404 || e.code === 409)) return;
    if (!stopped.signal.aborted) console.error('kubesim: token controller:', e);
  };

  async function syncSecret(secret: KubeObject): Promise<void> {
    if (secret['type'] !== serviceAccountTokenType || secret.metadata.deletionTimestamp) return;
    const namespace = secret.metadata.namespace!;
    const annotations = secret.metadata.annotations ?? {};
    const accountName = annotations[serviceAccountNameAnnotation];
    if (!accountName) return;
    const kv = await accounts.getKv(namespace, accountName);
    const account = kv ? accounts.decode(kv) : undefined;
    const wantUid = annotations[serviceAccountUidAnnotation];
    if (!account || (wantUid && wantUid !== account.metadata.uid)) {
      await secrets.delete(namespace, secret.metadata.name!, { preconditions: { uid: secret.metadata.uid } }).catch(ignoreGone);
      return;
    }
    const data = isObject(secret['data']) ? (secret['data'] as Record<string, string>) : {};
    const ca = deps.tokens.options.rootCA;
    const rootCA = typeof ca === 'function' ? ca() : ca;
    if (data['token'] && data['namespace'] && (!rootCA || data['ca.crt']) && wantUid) return;
    const token = data['token'] ? undefined : await deps.tokens.sign(legacyClaims(namespace, { name: accountName, uid: account.metadata.uid! }, secret.metadata.name!));
    await secrets.update(namespace, secret.metadata.name!, (current) => {
      if (!current || current.metadata.uid !== secret.metadata.uid) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 409, message: 'changed' });
      const next = structuredClone(current);
      const nextData = isObject(next['data']) ? (next['data'] as Record<string, string>) : {};
      if (token && !nextData['token']) nextData['token'] = base64(token);
      nextData['namespace'] ??= base64(namespace);
      if (rootCA) nextData['ca.crt'] ??= base64(rootCA);
      next['data'] = nextData;
      next.metadata.annotations = { ...next.metadata.annotations, [serviceAccountUidAnnotation]: account.metadata.uid! };
      return next;
    }).catch(ignoreGone);
  }

  async function deleteTokensOf(namespace: string, accountName: string, uid: string | undefined): Promise<void> {
    for (const s of (await secrets.list(namespace)).items) {
      const a = s.metadata.annotations ?? {};
      if (s['type'] !== serviceAccountTokenType || a[serviceAccountNameAnnotation] !== accountName) continue;
      if (uid && a[serviceAccountUidAnnotation] && a[serviceAccountUidAnnotation] !== uid) continue;
      await secrets.delete(namespace, s.metadata.name!, { preconditions: { uid: s.metadata.uid } }).catch(ignoreGone);
    }
  }

  void (async () => {
    const listed = await secrets.list('');
    if (stopped.signal.aborted) return;
    unsubscribes.push(await deps.storage.watch(secrets.prefix, listed.revision, (e) => {
      if (e.type === 'PUT') void syncSecret(secrets.decode(e.kv)).catch(ignoreGone);
    }));
    unsubscribes.push(await deps.storage.watch(accounts.prefix, listed.revision, (e) => {
      if (e.type !== 'DELETE') return;
      const sa = accounts.decode(e.kv);
      void deleteTokensOf(sa.metadata.namespace!, sa.metadata.name!, sa.metadata.uid).catch(ignoreGone);
    }));
    for (const s of listed.items) await syncSecret(s).catch(ignoreGone);
    if (stopped.signal.aborted) for (const u of unsubscribes) u();
  })();

  return {
    stop() {
      stopped.abort();
      for (const u of unsubscribes) u();
    },
  };
}
