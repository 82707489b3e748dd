/**
 * The service account controller (pkg/controller/serviceaccount/serviceaccounts_controller.go):
 * every active namespace has a ServiceAccount named `default`; it is created
 * with the namespace and re-created when deleted. Fed by storage watches,
 * like an informer.
 */
import { StatusError } from '../errors';
import type { NamespaceControllerDeps } from './namespace';
import { realClock } from '../util/clock';

export const defaultServiceAccountName = 'default';

/** How long a namespace whose ServiceAccount create was Forbidden waits before the next try (real time). */
const forbiddenRetryMs = 1000;

export function startServiceAccountController(deps: NamespaceControllerDeps): { stop(): void; synced: Promise<void> } {
  const namespaces = deps.storeFor(deps.registry.resourceFor('', 'v1', 'namespaces')!);
  const accounts = deps.storeFor(deps.registry.resourceFor('', 'v1', 'serviceaccounts')!);
  const stopped = new AbortController();
  const unsubscribes: (() => void)[] = [];

  async function ensure(namespace: string): Promise<void> {
    if (stopped.signal.aborted) return;
    try {
      const ns = await namespaces.getKv('', namespace);
      if (!ns || namespaces.decode(ns).metadata.deletionTimestamp) return;
      if (await accounts.getKv(namespace, defaultServiceAccountName)) return;
      await accounts.create(namespace, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: defaultServiceAccountName } });
    } catch (e) {
      // Refused by the authorizer (its own account without its binding): tried again, as the queue's AddRateLimited.
      if (e instanceof StatusError && e.code === 403 && !e.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) {
        void realClock.sleep(forbiddenRetryMs, stopped.signal).then(() => ensure(namespace));
        return;
      }
      // Created meanwhile, or the namespace is terminating or gone: nothing to do.
      if (e instanceof StatusError && (e.code === 409 || e.code === 403 || e.code === 404)) return;
      if (!stopped.signal.aborted) console.error(`kubesim: service account controller: ${namespace}:`, e);
    }
  }

  const synced = (async () => {
    const listed = await namespaces.list('');
    if (stopped.signal.aborted) return;
    unsubscribes.push(await deps.storage.watch(namespaces.prefix, listed.revision, (e) => {
      if (e.type === 'PUT' && !e.prevKv) void ensure(namespaces.decode(e.kv).metadata.name!);
    }));
    unsubscribes.push(await deps.storage.watch(accounts.prefix, listed.revision, (e) => {
      if (e.type !== 'DELETE') return;
      const [namespace, name] = e.kv.key.slice(accounts.prefix.length).split('/');
      if (name === defaultServiceAccountName && namespace) void ensure(namespace);
    }));
    for (const ns of listed.items) await ensure(ns.metadata.name!);
    if (stopped.signal.aborted) for (const u of unsubscribes) u();
  })();

  return {
    synced: synced.catch((e) => {
      if (!stopped.signal.aborted) console.error('kubesim: service account controller:', e);
    }),
    stop() {
      stopped.abort();
      for (const u of unsubscribes) u();
    },
  };
}
