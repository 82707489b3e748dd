/**
 * The z-pages of k8s.io/component-base/zpages: /statusz (gate
 * ComponentStatusz), /flagz (gate ComponentFlagz) and /configz.
 *
 * /statusz and /flagz answer plain text for humans by default; the
 * structured form (config.k8s.io Statusz / Flagz) only when the Accept
 * header names application/json with all of g, v and as. application/json
 * without them is not acceptable (406), so tooling never parses the text.
 */
import { StatusError } from '../errors';
import type { FeatureGates } from '../features';
import { parseAccept } from '../http/mediaType';
import { writeError } from '../http/responseWriter';
import type { Clock } from '../util/clock';
import type { VersionInfo } from './version';

export const componentName = 'kube-apiserver';
const group = 'config.k8s.io';
const versions = ['v1alpha1', 'v1beta1'];

const warningLine = 'Warning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees and is for debugging purposes only.';

/** Read-only endpoints statusz points to, by the names its text output gives them. */
const usefulEndpoints: [string, string][] = [
  ['configz', '/configz'],
  ['flagz', '/flagz'],
  ['healthz', '/healthz'],
  ['livez', '/livez'],
  ['metrics', '/metrics'],
  ['readyz', '/readyz'],
  ['sli metrics', '/metrics/slis'],
  ['version', '/version'],
];

export interface ZPagesDeps {
  clock: Clock;
  gates: FeatureGates;
  version: VersionInfo;
  /** Command-line flags by name (without dashes) as the host was started with them. */
  flags: Record<string, string>;
  /** The merged component configuration /configz shows. */
  config: () => Record<string, unknown>;
}

/**
 * A flag value as flagz shows it: credentials in a URL's userinfo are
 * replaced as Go's url.URL.Redacted() replaces them, and flags that carry a
 * secret outright are withheld.
 */
export function redactFlag(name: string, value: string): string {
  if (confidentialFlags.has(name)) return '[REDACTED]';
  return value
    .split(',')
    .map((part) => {
      const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/@:]*):([^/@]*)@/i.exec(part);
      return m ? `${m[1]}${m[2]}:xxxxx@${part.slice(m[0].length)}` : part;
    })
    .join(',');
}

/** Flags whose whole value is a secret. */
const confidentialFlags = new Set(['oidc-client-secret', 'etcd-password', 'encryption-provider-key']);

type Negotiated = { kind: 'text' } | { kind: 'json'; version: string } | { kind: 'none' };

/** Picks text or the structured form from Accept, in preference order. */
function negotiate(accept: string | null, as: string): Negotiated {
  const ranges = parseAccept(accept);
  if (!ranges.length) return { kind: 'text' };
  for (const m of ranges) {
    if ((m.type === 'text' && (m.subtype === 'plain' || m.subtype === '*')) || (m.type === '*' && m.subtype === '*')) return { kind: 'text' };
    if (m.type === 'application' && m.subtype === 'json' && m.params['g'] === group && versions.includes(m.params['v'] ?? '') && m.params['as'] === as) {
      return { kind: 'json', version: m.params['v']! };
    }
  }
  return { kind: 'none' };
}

function notAcceptable(request: Request, as: string): Response {
  const accepted = versions.map((v) => `application/json;g=${group};v=${v};as=${as}`).join(', ');
  return writeError(new StatusError({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotAcceptable', code: 406,
    message: `only the following media types are accepted: text/plain, ${accepted}`,
  }), request);
}

function text(body: string): Response {
  return new Response(body, { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache, private', 'X-Content-Type-Options': 'nosniff' } });
}

function json(body: Record<string, unknown>, version: string, as: string): Response {
  return new Response(`${JSON.stringify(body, null, 2)}\n`, { status: 200, headers: { 'Content-Type': `application/json;g=${group};v=${version};as=${as}`, 'Cache-Control': 'no-cache, private' } });
}

/** RFC 3339 at second precision, as metav1.Time marshals. */
function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** time.Time's String() form the text page prints: "Fri Nov 27 05:18:02 UTC 2026". */
function goDate(d: Date): string {
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const p = (n: number) => String(n).padStart(2, '0');
  return `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`;
}

export interface ZPages {
  /** GET /statusz, /flagz or /configz, or undefined for other paths (and for a page whose gate is off). */
  serve(request: Request, path: string): Response | undefined;
}

export function createZPages(deps: ZPagesDeps): ZPages {
  const started = deps.clock.now();
  const { version } = deps;
  const binaryVersion = version.gitVersion.replace(/^v/, '').replace(/\+.*$/, '');
  const emulationVersion = `${version.emulationMajor}.${version.emulationMinor}`;
  const minimumCompatibilityVersion = `${version.minCompatibilityMajor}.${version.minCompatibilityMinor}`;

  /** The useful endpoints this server serves (flagz only with its gate). */
  const endpoints = () => usefulEndpoints.filter(([name]) => name !== 'flagz' || deps.gates.ComponentFlagz);

  function statusz(request: Request): Response {
    const chosen = negotiate(request.headers.get('accept'), 'Statusz');
    if (chosen.kind === 'none') return notAcceptable(request, 'Statusz');
    const now = deps.clock.now();
    const uptime = Math.max(0, Math.floor((now.getTime() - started.getTime()) / 1000));
    if (chosen.kind === 'json') {
      return json({
        kind: 'Statusz', apiVersion: `${group}/${chosen.version}`, metadata: { name: componentName },
        startTime: rfc3339(started), uptimeSeconds: uptime, binaryVersion, emulationVersion, minimumCompatibilityVersion,
        paths: endpoints().map(([, p]) => p).sort(),
      }, chosen.version, 'Statusz');
    }
    const p = (n: number) => String(n).padStart(2, '0');
    const up = `${Math.floor(uptime / 3600)} hr ${p(Math.floor(uptime / 60) % 60)} min ${p(uptime % 60)} sec`;
    return text([
      `${componentName} statusz`, warningLine, '',
      `Started: ${goDate(started)}`, `Up: ${up}`, `Binary version: ${binaryVersion}`, `Emulation version: ${emulationVersion}`,
      `Minimum Compatibility version: ${minimumCompatibilityVersion}`, '',
      'List of useful endpoints', '--------------', ...endpoints().map(([n, path]) => `${n}:${path}`), '',
    ].join('\n'));
  }

  function flagz(request: Request): Response {
    const chosen = negotiate(request.headers.get('accept'), 'Flagz');
    if (chosen.kind === 'none') return notAcceptable(request, 'Flagz');
    const flags = Object.fromEntries(Object.keys(deps.flags).sort().map((k) => [k, redactFlag(k, deps.flags[k]!)]));
    if (chosen.kind === 'json') {
      return json({ kind: 'Flagz', apiVersion: `${group}/${chosen.version}`, metadata: { name: componentName }, flags }, chosen.version, 'Flagz');
    }
    return text([`${componentName} flags`, warningLine, '', ...Object.entries(flags).map(([k, v]) => `${k}=${v}`), ''].join('\n'));
  }

  return {
    serve(request, path) {
      if (path === '/statusz' && deps.gates.ComponentStatusz) return statusz(request);
      if (path === '/flagz' && deps.gates.ComponentFlagz) return flagz(request);
      if (path === '/configz') {
        return new Response(`${JSON.stringify({ [componentName]: deps.config() })}\n`, { status: 200, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' } });
      }
      return undefined;
    },
  };
}
