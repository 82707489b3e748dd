/**
 * Page side of the service-worker host: registers the worker, makes sure
 * this page is controlled by it, and checks that page and worker come from
 * the same build. Every API request of the workbench depends on that.
 *
 * Three situations need care:
 *  - first visit: the page loaded before any worker existed; the new worker
 *    claims it on activation (controllerchange);
 *  - hard reload (Shift+Reload): the browser bypasses the worker for this
 *    page even though one is active; asking the worker to claim the page
 *    recovers, and a normal reload is the fallback;
 *  - stale worker: the active worker came from another build; update it and
 *    reload once so both sides match.
 * Reloads are guarded in sessionStorage so a broken setup cannot loop.
 */
import { BUILD_ID, PROTOCOL_VERSION, sendToWorker, workerUrlWith } from '../../sw';
import { tabServerSettings } from '../features/access/settings';

export type ConnectionFailure = 'insecure-context' | 'unsupported' | 'registration-failed' | 'not-controlled';

export class ServiceWorkerUnavailableError extends Error {
  constructor(
    readonly failure: ConnectionFailure,
    message: string,
  ) {
    super(message);
    this.name = 'ServiceWorkerUnavailableError';
  }
}

export interface WorkerConnection {
  buildId: string;
  protocolVersion: number;
  /** True when the worker still came from another build after one reload. */
  stale: boolean;
}

/**
 * In development Vite serves the worker from source as an ES module (with Service-Worker-Allowed: /); builds emit
 * /sw.js, a classic worker that imports its parts with importScripts (src/sw/chunkLoader.ts).
 */
const WORKER_URL = import.meta.env.DEV ? '/src/sw/worker.ts' : '/sw.js';
const WORKER_TYPE: WorkerType = import.meta.env.DEV ? 'module' : 'classic';
const RELOAD_GUARD = 'kubesim.serviceWorker.reloadedFor';
const ACTIVATION_TIMEOUT_MS = 20_000;
const CLAIM_TIMEOUT_MS = 3_000;

let connecting: Promise<WorkerConnection> | undefined;

/** Connects once per page load; later calls share the first attempt. */
export function connectServiceWorker(): Promise<WorkerConnection> {
  connecting ??= connect();
  return connecting;
}

async function connect(): Promise<WorkerConnection> {
  if (!window.isSecureContext) {
    throw new ServiceWorkerUnavailableError(
      'insecure-context',
      `Service workers need a secure context. Open the workbench over https:// or on localhost / 127.0.0.1 (this page is ${location.origin}).`,
    );
  }
  if (!('serviceWorker' in navigator)) {
    throw new ServiceWorkerUnavailableError(
      'unsupported',
      'This browser does not offer service workers (or they are disabled, as in some private windows). kubesim runs its API server in a service worker; try a current Chromium, Firefox or Safari in a normal window.',
    );
  }
  const container = navigator.serviceWorker;
  let registration: ServiceWorkerRegistration;
  try {
    // Host settings ride on the script URL; `localStorage['kubesim.watchHistoryWindow'] = '10m'` sets the window,
    // the Access panel the token table and authorization modes, a scenario the modes and feature gates.
    const url = workerUrlWith(WORKER_URL, { watchHistoryWindow: localStorage.getItem('kubesim.watchHistoryWindow') ?? undefined, ...tabServerSettings() });
    // Changed settings (a new script URL) install a new worker that takes over at once; wait for it, so no
    // request of this page reaches the old worker while it stops.
    const takeover = nextControllerChange(container, ACTIVATION_TIMEOUT_MS);
    registration = await container.register(url, { type: WORKER_TYPE, scope: '/', updateViaCache: 'none' });
    if (container.controller && container.controller.scriptURL !== new URL(url, location.href).href) await takeover;
  } catch (error) {
    throw new ServiceWorkerUnavailableError(
      'registration-failed',
      `The kubesim service worker could not be registered: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const ready = await withTimeout(container.ready, ACTIVATION_TIMEOUT_MS);
  if (!ready?.active) {
    throw new ServiceWorkerUnavailableError('registration-failed', 'The kubesim service worker did not activate.');
  }
  if (!container.controller) await takeControl(container, ready.active);

  const controller = container.controller as ServiceWorker | null;
  if (!controller) return reloadOnce('not-controlled');
  const hello = await sendToWorker(controller, { type: 'kubesim/hello' });
  if (hello.type !== 'kubesim/hello') throw new Error('unexpected handshake reply');
  const stale = hello.buildId !== BUILD_ID || hello.protocolVersion !== PROTOCOL_VERSION;
  if (stale && sessionStorage.getItem(RELOAD_GUARD) !== 'stale') {
    // The new worker activates at once and claims this page; reload so page and worker match.
    const changed = nextControllerChange(container, ACTIVATION_TIMEOUT_MS);
    const incoming = await registration.update().then(
      () => registration.installing ?? registration.waiting,
      () => null,
    );
    if (incoming) await changed;
    return reloadOnce('stale');
  }
  sessionStorage.removeItem(RELOAD_GUARD);
  return { buildId: hello.buildId, protocolVersion: hello.protocolVersion, stale };
}

/** Waits for the active worker to control this page, asking it to claim the page (needed after Shift+Reload). */
async function takeControl(container: ServiceWorkerContainer, active: ServiceWorker): Promise<void> {
  const changed = nextControllerChange(container, CLAIM_TIMEOUT_MS);
  if (container.controller) return;
  await sendToWorker(active, { type: 'kubesim/claim' }, CLAIM_TIMEOUT_MS).catch(() => undefined);
  await changed;
}

function nextControllerChange(container: ServiceWorkerContainer, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    container.addEventListener(
      'controllerchange',
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      { once: true },
    );
  });
}

/** Reloads the page once for a reason; the second time round, reports instead of looping. */
function reloadOnce(reason: 'not-controlled' | 'stale'): Promise<never> {
  if (sessionStorage.getItem(RELOAD_GUARD) === reason) {
    sessionStorage.removeItem(RELOAD_GUARD);
    throw new ServiceWorkerUnavailableError(
      'not-controlled',
      'The kubesim service worker is installed but does not control this page. Reload the page normally (a hard reload, Shift+Reload, bypasses service workers).',
    );
  }
  sessionStorage.setItem(RELOAD_GUARD, reason);
  location.reload();
  return new Promise<never>(() => {});
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return Promise.race([promise, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms))]);
}
