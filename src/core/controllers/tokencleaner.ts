/**
 * The tokencleaner controller (pkg/controller/bootstrap/tokencleaner.go):
 * bootstrap token Secrets in kube-system are deleted once their expiration
 * passes (with a uid precondition, so a re-created Secret is kept).
 */
import type { KubeObject } from '../api/types';
import { bootstrapTokenExpired, bootstrapTokenType, secretData } from '../auth/authenticator/bootstrap';
import { StatusError } from '../errors';
import type { NamespaceControllerDeps } from './namespace';

export function startTokenCleaner(deps: NamespaceControllerDeps): { stop(): void } {
  const secrets = deps.storeFor(deps.registry.resourceFor('', 'v1', 'secrets')!);
  const stopped = new AbortController();
  const unsubscribes: (() => void)[] = [];
  const scheduled = new Set<string>();

  async function evaluate(secret: KubeObject): Promise<void> {
    if (secret['type'] !== bootstrapTokenType || secret.metadata.deletionTimestamp) return;
    const expiration = secretData(secret, 'expiration');
    if (!expiration) return;
    const key = `${secret.metadata.name}/${secret.metadata.uid}/${expiration}`;
    if (!bootstrapTokenExpired(secret, deps.clock.now())) {
      if (scheduled.has(key)) return;
      scheduled.add(key);
      await deps.clock.sleep(Math.max(0, Date.parse(expiration) - deps.clock.now().getTime()) + 1, stopped.signal);
      scheduled.delete(key);
      if (stopped.signal.aborted) return;
      const kv = await secrets.getKv('kube-system', secret.metadata.name!);
      if (kv) await evaluate(secrets.decode(kv));
      return;
    }
    try {
      await secrets.delete('kube-system', secret.metadata.name!, { preconditions: { uid: secret.metadata.uid } });
    } catch (e) {
      if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) throw e;
    }
  }

  const run = (s: KubeObject) => void evaluate(s).catch((e) => {
    if (!stopped.signal.aborted) console.error('kubesim: tokencleaner:', e);
  });

  void (async () => {
    const listed = await secrets.list('kube-system');
    if (stopped.signal.aborted) return;
    unsubscribes.push(await deps.storage.watch(`${secrets.prefix}kube-system/`, listed.revision, (e) => {
      if (e.type === 'PUT') run(secrets.decode(e.kv));
    }));
    for (const s of listed.items) run(s);
    if (stopped.signal.aborted) for (const u of unsubscribes) u();
  })();

  return {
    stop() {
      stopped.abort();
      for (const u of unsubscribes) u();
    },
  };
}
