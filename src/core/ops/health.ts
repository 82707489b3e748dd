/**
 * /healthz, /livez and /readyz (k8s.io/apiserver/pkg/server/healthz): named
 * checks run on every request, `?verbose` and `?exclude=` as the healthz
 * package writes them, and `/<endpoint>/<check>` for a single check.
 */
import { writeText } from '../http/responseWriter';
import type { Clock } from '../util/clock';

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

/** A check answers undefined when healthy, else the reason it failed (logged by kube, withheld from clients). */
export type CheckFn = () => Promise<string | undefined> | string | undefined;

interface NamedCheck {
  name: string;
  check: CheckFn;
  endpoints: readonly HealthEndpoint[];
}

/** Observes every check run, for kubernetes_healthcheck and kubernetes_healthchecks_total on /metrics/slis. */
export type HealthObserver = (endpoint: HealthEndpoint, name: string, healthy: boolean) => void;

export interface HealthOptions {
  clock: Clock;
  /** --livez-grace-period: for this long after start, /livez counts unfinished post-start hooks as healthy. */
  livezGracePeriodMs?: number;
}

const all: readonly HealthEndpoint[] = ['healthz', 'livez', 'readyz'];

export class HealthChecks {
  private readonly checks: NamedCheck[] = [];
  private readonly hooks = new Map<string, boolean>();
  private readonly startedAt: number;
  private readonly clock: Clock;
  private readonly livezGracePeriodMs: number;
  private shuttingDown = false;
  private readonly observers: HealthObserver[] = [];

  constructor(options: HealthOptions) {
    this.clock = options.clock;
    this.startedAt = options.clock.now().getTime();
    this.livezGracePeriodMs = options.livezGracePeriodMs ?? 0;
  }

  /** Adds a check, in the order the verbose output lists it. */
  add(name: string, check: CheckFn, endpoints: readonly HealthEndpoint[] = all): void {
    this.checks.push({ name, check, endpoints });
  }

  /**
   * A post-start hook `poststarthook/<name>`: failing "not finished" until
   * done() is called. /livez excuses it during the grace period, as kube wraps
   * it in a delayed check.
   */
  addPostStartHook(name: string): () => void {
    this.hooks.set(name, false);
    const hookCheck = (): string | undefined => (this.hooks.get(name) ? undefined : 'not finished');
    this.add(`poststarthook/${name}`, hookCheck, ['healthz', 'readyz']);
    this.add(`poststarthook/${name}`, () => (this.inLivezGracePeriod() ? undefined : hookCheck()), ['livez']);
    return () => this.hooks.set(name, true);
  }

  /** A boot-sequence check (AddBootSequenceHealthChecks): on all three endpoints, excused on /livez during the grace period. */
  addBootSequenceCheck(name: string, check: CheckFn): void {
    this.add(name, check, ['healthz', 'readyz']);
    this.add(name, () => (this.inLivezGracePeriod() ? undefined : check()), ['livez']);
  }

  /** Shutdown has begun: /readyz fails its `shutdown` check from now on (--shutdown-delay-duration drains here). */
  startShutdown(): void {
    this.shuttingDown = true;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  observe(observer: HealthObserver): void {
    this.observers.push(observer);
  }

  private inLivezGracePeriod(): boolean {
    return this.clock.now().getTime() - this.startedAt < this.livezGracePeriodMs;
  }

  private checksFor(endpoint: HealthEndpoint): NamedCheck[] {
    const checks = this.checks.filter((c) => c.endpoints.includes(endpoint));
    // `shutdown` stays last whatever hooks are added after it.
    return [...checks.filter((c) => c.name !== 'shutdown'), ...checks.filter((c) => c.name === 'shutdown')];
  }

  /** The readyz `shutdown` check, added last as kube-apiserver adds it. */
  addShutdownCheck(): void {
    this.add('shutdown', () => (this.shuttingDown ? 'process is shutting down' : undefined), ['readyz']);
  }

  private async run(endpoint: HealthEndpoint, c: NamedCheck): Promise<string | undefined> {
    let reason: string | undefined;
    try {
      reason = await c.check();
    } catch (e) {
      reason = e instanceof Error ? e.message : String(e);
    }
    for (const o of this.observers) o(endpoint, c.name, reason === undefined);
    return reason;
  }

  /** Answers a health path, or undefined when path is not one. */
  async serve(path: string, url: URL): Promise<Response | undefined> {
    const m = /^\/(healthz|livez|readyz)(?:\/(.*))?$/.exec(path);
    if (!m) return undefined;
    const endpoint = m[1] as HealthEndpoint;
    const checks = this.checksFor(endpoint);
    if (m[2] !== undefined) {
      // Only the exact per-check paths are installed; anything else under the endpoint is the mux's 404.
      const c = checks.find((x) => x.name === m[2]);
      if (!c) return writeText(404, '404 page not found\n');
      const reason = await this.run(endpoint, c);
      return reason === undefined ? writeText(200, 'ok') : writeText(500, `internal server error: ${reason}\n`);
    }
    const excluded = new Set(url.searchParams.getAll('exclude'));
    let out = '';
    const failed: string[] = [];
    for (const c of checks) {
      if (excluded.has(c.name)) {
        excluded.delete(c.name);
        out += `[+]${c.name} excluded: ok\n`;
        continue;
      }
      const reason = await this.run(endpoint, c);
      if (reason === undefined) out += `[+]${c.name} ok\n`;
      else {
        out += `[-]${c.name} failed: reason withheld\n`;
        failed.push(c.name);
      }
    }
    if (excluded.size > 0) {
      out += `warn: some health checks cannot be excluded: no matches for ${[...excluded].sort().map((n) => JSON.stringify(n)).join(', ')}\n`;
    }
    // Always verbose on failure; http.Error appends the newline.
    if (failed.length) return writeText(500, `${out}${endpoint} check failed\n`);
    if (!url.searchParams.has('verbose')) return writeText(200, 'ok');
    return writeText(200, `${out}${endpoint} check passed\n`);
  }
}

export interface ServerHealthDeps extends HealthOptions {
  /** The backend store; `etcd` is healthy while it answers. */
  storage: { currentRevision(): Promise<number> };
}

/** The post-start hooks kube-apiserver runs that this server runs too, in the order /livez?verbose lists them. */
export const postStartHooks = [
  'start-apiserver-admission-initializer',
  'generic-apiserver-start-informers',
  'start-apiextensions-informers',
  'start-apiextensions-controllers',
  'crd-informer-synced',
  'start-system-namespaces-controller',
  'bootstrap-controller',
  // kube-aggregator's, then kube-apiserver's autoregistration.
  'start-kube-aggregator-informers',
  'apiservice-status-local-available-controller',
  'apiservice-status-remote-available-controller',
  'apiservice-registration-controller',
  'kube-apiserver-autoregistration',
] as const;
export type PostStartHook = (typeof postStartHooks)[number] | 'rbac/bootstrap-roles';

export interface ServerHealth {
  checks: HealthChecks;
  /** Marks a post-start hook finished. */
  done(hook: PostStartHook): void;
  /** Adds and finishes a hook only some configurations run (rbac/bootstrap-roles). */
  ran(hook: PostStartHook): void;
  /** The informers (watch cache, controllers) have synced: readyz `informer-sync` passes. */
  informersSynced(): void;
  /** What `autoregister-completion` checks: the onstart APIServices not yet seen Available (failing until set). */
  autoregisterPending(pending: () => string[]): void;
}

/** The checks of kube-apiserver: ping, log, etcd, etcd-readiness, informer-sync, the post-start hooks and shutdown. */
export function serverHealth(deps: ServerHealthDeps): ServerHealth {
  const checks = new HealthChecks(deps);
  let synced = false;
  const etcd = async () => {
    try {
      await deps.storage.currentRevision();
      return undefined;
    } catch (e) {
      return `error getting data from etcd: ${e instanceof Error ? e.message : String(e)}`;
    }
  };
  checks.add('ping', () => undefined);
  checks.add('log', () => undefined);
  checks.add('etcd', etcd);
  checks.add('etcd-readiness', etcd, ['readyz']);
  checks.add('informer-sync', () => (synced ? undefined : 'informers not started yet'), ['readyz']);
  const hooks = new Map<string, () => void>(postStartHooks.map((h) => [h, checks.addPostStartHook(h)]));
  let pending: (() => string[]) | undefined;
  checks.addBootSequenceCheck('autoregister-completion', () => {
    if (!pending) return 'not started';
    const missing = pending();
    return missing.length ? `missing APIService: [${missing.sort().join(' ')}]` : undefined;
  });
  checks.addShutdownCheck();
  return {
    checks,
    done: (hook) => hooks.get(hook)?.(),
    ran: (hook) => checks.addPostStartHook(hook)(),
    informersSynced: () => {
      synced = true;
    },
    autoregisterPending: (fn) => {
      pending = fn;
    },
  };
}
