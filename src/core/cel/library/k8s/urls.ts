// Kubernetes URL library, following Go's url.ParseRequestURI: absolute URIs
// or absolute paths only; no normalisation of host, port or path.

import { CelError, CelMap, CelOpaque, codePointLength, type CelValue } from '../../common/values';
import { def, type Library } from '../../interpreter/functions';
import { STRING_TRAVERSAL_FACTOR, factorR, stringTraversal } from '../costs';

export class CelURL extends CelOpaque {
  readonly typeName = 'kubernetes.URL';
  constructor(
    readonly raw: string,
    readonly scheme: string,
    readonly host: string,
    readonly path: string,
    readonly rawQuery: string,
  ) {
    super();
  }
  equal(o: CelValue): boolean {
    return o instanceof CelURL && o.raw === this.raw;
  }
  size(): number {
    return codePointLength(this.raw);
  }
}

export function parseURL(s: string): CelURL | CelError {
  const fail = (): CelError => new CelError(`URL parse error during conversion from string: parse "${s}": invalid URI for request`);
  if (s === '' || /[\x00-\x1f\x7f ]/.test(s)) return fail();
  let rest = s;
  let scheme = '';
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = m[1]!;
    rest = rest.slice(m[0].length);
  } else if (/^[a-zA-Z0-9+.-]*:/.test(rest) && !rest.startsWith('/')) {
    return new CelError(`URL parse error during conversion from string: parse "${s}": missing protocol scheme`);
  }
  let rawQuery = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  if (!rest.startsWith('/')) return fail();
  let host = '';
  if (scheme && rest.startsWith('//')) {
    const auth = rest.slice(2);
    const slash = auth.indexOf('/');
    const authority = slash >= 0 ? auth.slice(0, slash) : auth;
    rest = slash >= 0 ? auth.slice(slash) : '';
    host = authority.includes('@') ? authority.slice(authority.lastIndexOf('@') + 1) : authority;
    const pm = /:([^\]]*)$/.exec(host);
    if (pm && !/^\d*$/.test(pm[1]!)) {
      return new CelError(`URL parse error during conversion from string: parse "${s}": invalid port "${pm[0]}" after host`);
    }
  }
  return new CelURL(s, scheme, host, rest, rawQuery);
}

function hostname(u: CelURL): string {
  const h = u.host;
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end >= 0 ? h.slice(1, end) : h;
  }
  const c = h.lastIndexOf(':');
  return c >= 0 ? h.slice(0, c) : h;
}

function port(u: CelURL): string {
  const h = u.host;
  const end = h.startsWith('[') ? h.indexOf(']') : -1;
  const c = h.lastIndexOf(':');
  return c > end ? h.slice(c + 1) : '';
}

function unescapeQuery(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

function query(u: CelURL): CelValue {
  const m = new CelMap();
  if (u.rawQuery === '') return m;
  for (const part of u.rawQuery.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const k = unescapeQuery(eq >= 0 ? part.slice(0, eq) : part);
    const v = unescapeQuery(eq >= 0 ? part.slice(eq + 1) : '');
    const prev = m.get(k) as string[] | undefined;
    if (prev) prev.push(v);
    else m.set(k, [v]);
  }
  return m;
}

export function k8sURLsLibrary(): Library {
  const cost = (args: CelValue[]): number => stringTraversal(codePointLength(args[0] as string));
  return {
    name: 'k8s.urls',
    overloads: [
      def('string_to_url', 'url(string) -> kubernetes.URL', (s) => parseURL(s as string), {
        cost,
        estimate: (_t, args) => (args[0] ? { cost: factorR(args[0].size(), STRING_TRAVERSAL_FACTOR) } : undefined),
      }),
      def('url_is_url_string', 'isURL(string) -> bool', (s) => !(parseURL(s as string) instanceof CelError)),
      def('url_get_scheme', 'kubernetes.URL.getScheme() -> string', (u) => (u as CelURL).scheme),
      def('url_get_host', 'kubernetes.URL.getHost() -> string', (u) => (u as CelURL).host),
      def('url_get_hostname', 'kubernetes.URL.getHostname() -> string', (u) => hostname(u as CelURL)),
      def('url_get_port', 'kubernetes.URL.getPort() -> string', (u) => port(u as CelURL)),
      def('url_get_escaped_path', 'kubernetes.URL.getEscapedPath() -> string', (u) => (u as CelURL).path),
      def('url_get_query', 'kubernetes.URL.getQuery() -> map(string, list(string))', (u) => query(u as CelURL)),
    ],
  };
}
