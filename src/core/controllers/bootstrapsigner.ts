/**
 * The bootstrapsigner controller (pkg/controller/bootstrap/bootstrapsigner.go):
 * ConfigMap kube-public/cluster-info carries, for each bootstrap token marked
 * usage-bootstrap-signing and unexpired, `jws-kubeconfig-<id>`: a detached
 * HS256 JWS of its `kubeconfig` value keyed with the token secret (the
 * compact JWS with the payload removed: `<header>..<signature>`). Signatures
 * of tokens no longer valid are removed.
 */
import { CompactSign } from 'jose';
import { isObject, type KubeObject } from '../api/types';
import { bootstrapTokenExpired, bootstrapTokenSecretPrefix, bootstrapTokenType, secretData } from '../auth/authenticator/bootstrap';
import { StatusError } from '../errors';
import type { NamespaceControllerDeps } from './namespace';

export const clusterInfoNamespace = 'kube-public';
export const clusterInfoName = 'cluster-info';
export const jwsSignaturePrefix = 'jws-kubeconfig-';
const secretNamePattern = /^bootstrap-token-([a-z0-9]{6})$/;

/** jws.ComputeDetachedSignature: header {"alg":"HS256","kid":<id>}, payload removed. */
export async function computeDetachedSignature(content: string, tokenId: string, tokenSecret: string): Promise<string> {
  const full = await new CompactSign(new TextEncoder().encode(content)).setProtectedHeader({ alg: 'HS256', kid: tokenId }).sign(new TextEncoder().encode(tokenSecret));
  const [header, , signature] = full.split('.');
  return `${header}..${signature}`;
}

/** validateSecretForSigning: the token id and secret of a Secret that may sign, else undefined. */
export function signingToken(secret: KubeObject, now: Date): { id: string; secret: string } | undefined {
  if (secret['type'] !== bootstrapTokenType) return undefined;
  const m = secretNamePattern.exec(secret.metadata.name ?? '');
  if (!m) return undefined;
  const id = secretData(secret, 'token-id');
  if (!id || id !== m[1]) return undefined;
  const tokenSecret = secretData(secret, 'token-secret');
  if (!tokenSecret || bootstrapTokenExpired(secret, now)) return undefined;
  if (secretData(secret, 'usage-bootstrap-signing') !== 'true') return undefined;
  return { id, secret: tokenSecret };
}

export function startBootstrapSigner(deps: NamespaceControllerDeps): { stop(): void } {
  const configMaps = deps.storeFor(deps.registry.resourceFor('', 'v1', 'configmaps')!);
  const secrets = deps.storeFor(deps.registry.resourceFor('', 'v1', 'secrets')!);
  const stopped = new AbortController();
  const unsubscribes: (() => void)[] = [];
  let running: Promise<void> | undefined;
  let again = false;

  async function sign(): Promise<void> {
    const kv = await configMaps.getKv(clusterInfoNamespace, clusterInfoName);
    if (!kv) return;
    const cm = configMaps.decode(kv);
    const data = isObject(cm['data']) ? (cm['data'] as Record<string, string>) : {};
    const content = data['kubeconfig'];
    if (content === undefined) return;
    const next: Record<string, string> = {};
    const old: Record<string, string> = {};
    for (const [k, v] of Object.entries(data)) {
      if (k.startsWith(jwsSignaturePrefix)) old[k] = v;
      else next[k] = v;
    }
    const now = deps.clock.now();
    for (const s of (await secrets.list('kube-system')).items) {
      if (!s.metadata.name?.startsWith(bootstrapTokenSecretPrefix)) continue;
      const token = signingToken(s, now);
      if (token) next[jwsSignaturePrefix + token.id] = await computeDetachedSignature(content, token.id, token.secret);
    }
    const changed = Object.keys(next).filter((k) => k.startsWith(jwsSignaturePrefix)).some((k) => next[k] !== old[k]) || Object.keys(old).some((k) => !(k in next));
    if (!changed) return;
    await configMaps.update(clusterInfoNamespace, clusterInfoName, (current) => {
      if (!current || current.metadata.resourceVersion !== cm.metadata.resourceVersion) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 409, message: 'changed' });
      return { ...current, data: next };
    });
  }

  /** One sync at a time; changes during a sync run it once more. */
  function queue(): void {
    if (stopped.signal.aborted) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await sign();
        } catch (e) {
          if (e instanceof StatusError && (e.code === 409 || e.code === 404)) again = true;
          else if (!stopped.signal.aborted) console.error('kubesim: bootstrapsigner:', e);
        }
      } while (again && !stopped.signal.aborted);
      running = undefined;
    })();
  }

  void (async () => {
    const revision = await deps.storage.currentRevision();
    if (stopped.signal.aborted) return;
    unsubscribes.push(await deps.storage.watch(`${configMaps.prefix}${clusterInfoNamespace}/${clusterInfoName}`, revision, queue));
    unsubscribes.push(await deps.storage.watch(`${secrets.prefix}kube-system/`, revision, queue));
    queue();
    if (stopped.signal.aborted) for (const u of unsubscribes) u();
  })();

  return {
    stop() {
      stopped.abort();
      for (const u of unsubscribes) u();
    },
  };
}
