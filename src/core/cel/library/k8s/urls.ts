// Kubernetes URL library, parsing as Go's url.ParseRequestURI does: absolute
// URIs (a rootless one is opaque) or absolute paths; spaces and other
// characters Go tolerates are kept, the path is escaped on the way out.

import { CelError, CelMap, CelOpaque, codePointLength, type CelValue } from '../../common/values';
import { def, type Library } from '../../interpreter/functions';

export class CelURL extends CelOpaque {
  readonly typeName = 'kubernetes.URL';
  constructor(
    readonly raw: string,
    readonly scheme: string,
    readonly host: string,
    /** unescaped path */
    readonly path: string,
    /** the path as written, when escaping the unescaped path would not give it back */
    readonly rawPath: string,
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

const utf8 = new TextEncoder();
const HEX = '0123456789ABCDEF';
const isHex = (c: string): boolean => /^[0-9a-fA-F]$/.test(c);
const isAlnum = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

type Mode = 'path' | 'host' | 'query';

/** Go's shouldEscape for the modes the URL library uses. */
function shouldEscape(c: number, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  if (mode === 'host' && "!$&'()*+,;=:[]<>\"".includes(String.fromCharCode(c))) return false;
  switch (String.fromCharCode(c)) {
    case '-':
    case '_':
    case '.':
    case '~':
      return false;
    case '$':
    case '&':
    case '+':
    case ',':
    case '/':
    case ':':
    case ';':
    case '=':
    case '?':
    case '@':
      return mode === 'path' ? c === 0x3f : true;
  }
  return true;
}

class GoURLError extends Error {}

/** Go's unescape: %XX sequences decoded as bytes, `+` a space in queries; bad escapes are errors. */
function unescape(s: string, mode: Mode): string {
  const bytes: number[] = [];
  const src = utf8.encode(s);
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === 0x25) {
      const a = String.fromCharCode(src[i + 1] ?? 0);
      const b = String.fromCharCode(src[i + 2] ?? 0);
      if (!isHex(a) || !isHex(b)) {
        const bad = new TextDecoder().decode(src.slice(i, Math.min(i + 3, src.length)));
        throw new GoURLError(`invalid URL escape "${bad}"`);
      }
      // only non-ASCII may be percent-encoded in a host (RFC 6874 zones aside)
      if (mode === 'host' && parseInt(a, 16) < 8 && `%${a}${b}` !== '%25') throw new GoURLError(`invalid URL escape "%${a}${b}"`);
      bytes.push(parseInt(a + b, 16));
      i += 2;
    } else if (c === 0x2b && mode === 'query') {
      bytes.push(0x20);
    } else {
      if (mode === 'host' && c < 0x80 && shouldEscape(c, 'host')) throw new GoURLError(`invalid character ${JSON.stringify(String.fromCharCode(c))} in host name`);
      bytes.push(c);
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

function escapePath(s: string): string {
  let out = '';
  for (const c of utf8.encode(s)) out += shouldEscape(c, 'path') ? '%' + HEX[c >> 4] + HEX[c & 15] : String.fromCharCode(c);
  return out;
}

/** Go's validEncoded for paths: sub-delims, brackets and escapes may stay as written. */
function validEncodedPath(s: string): boolean {
  for (const c of utf8.encode(s)) {
    if ("!$&'()*+,;=:@[]%".includes(String.fromCharCode(c))) continue;
    if (shouldEscape(c, 'path')) return false;
  }
  return true;
}

function validOptionalPort(p: string): boolean {
  return p === '' || /^:[0-9]*$/.test(p);
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new GoURLError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new GoURLError(`invalid port ${JSON.stringify(colonPort)} after host`);
  } else {
    const i = host.lastIndexOf(':');
    if (i >= 0 && !validOptionalPort(host.slice(i))) throw new GoURLError(`invalid port ${JSON.stringify(host.slice(i))} after host`);
  }
  return unescape(host, 'host');
}

/** Go's url.parse: viaRequest is ParseRequestURI's strictness (no empty or relative references, no fragment split). */
function goParse(raw: string, s: string, viaRequest: boolean): CelURL {
  if (/[\x00-\x1f\x7f]/.test(s)) throw new GoURLError('net/url: invalid control character in URL');
  if (s === '' && viaRequest) throw new GoURLError('empty url');
  if (s === '*') return new CelURL(raw, '', '', '*', '', '');
  let scheme = '';
  let rest = s;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) continue;
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) {
      if (i === 0) break;
      continue;
    }
    if (c === 0x3a) {
      if (i === 0) throw new GoURLError('missing protocol scheme');
      scheme = s.slice(0, i).toLowerCase();
      rest = s.slice(i + 1);
    }
    break;
  }
  let rawQuery = '';
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    // a rootless path after a scheme is opaque
    if (scheme !== '') return new CelURL(raw, scheme, '', '', '', rawQuery);
    if (viaRequest) throw new GoURLError('invalid URI for request');
  }
  let host = '';
  if ((scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    const at = authority.lastIndexOf('@');
    host = parseHost(at < 0 ? authority : authority.slice(at + 1));
    if (at >= 0 && !/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(authority.slice(0, at))) throw new GoURLError('net/url: invalid userinfo');
  }
  const path = unescape(rest, 'path');
  return new CelURL(raw, scheme, host, path, escapePath(path) === rest ? '' : rest, rawQuery);
}

/**
 * The library checks the text with url.ParseRequestURI, then parses it with url.Parse, which splits
 * the fragment off (and reads `//host` of a scheme-less reference as a host).
 */
export function parseURL(s: string): CelURL | CelError {
  try {
    goParse(s, s, true);
    const hash = s.indexOf('#');
    const u = goParse(s, hash >= 0 ? s.slice(0, hash) : s, false);
    if (hash >= 0) unescape(s.slice(hash + 1), 'path');
    return u;
  } catch (e) {
    if (!(e instanceof GoURLError)) throw e;
    return new CelError(`URL parse error during conversion from string: parse ${JSON.stringify(s)}: ${e.message}`);
  }
}

/** Go's URL.EscapedPath: the path as written when it is a valid encoding of the path, else the path escaped. */
function escapedPath(u: CelURL): string {
  if (u.rawPath !== '' && validEncodedPath(u.rawPath)) {
    try {
      if (unescape(u.rawPath, 'path') === u.path) return u.rawPath;
    } catch {
      // fall through to escaping
    }
  }
  if (u.path === '*') return '*';
  return escapePath(u.path);
}

/** Go's splitHostPort as Hostname() and Port() use it. */
function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

/** Go's url.ParseQuery: `&`-separated pairs, values of a repeated key grouped in order; pairs with a `;` or a bad escape are dropped. */
function query(u: CelURL): CelValue {
  const m = new CelMap();
  for (const part of u.rawQuery.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    let k: string;
    let v: string;
    try {
      k = unescape(eq >= 0 ? part.slice(0, eq) : part, 'query');
      v = unescape(eq >= 0 ? part.slice(eq + 1) : '', 'query');
    } catch {
      continue;
    }
    const prev = m.get(k) as string[] | undefined;
    if (prev) prev.push(v);
    else m.set(k, [v]);
  }
  return m;
}

export function k8sURLsLibrary(): Library {
  return {
    name: 'k8s.urls',
    types: ['kubernetes.URL'],
    overloads: [
      def('string_to_url', 'url(string) -> kubernetes.URL', (s) => parseURL(s as string)),
      def('url_is_url_string', 'isURL(string) -> bool', (s) => !(parseURL(s as string) instanceof CelError)),
      def('url_get_scheme', 'kubernetes.URL.getScheme() -> string', (u) => (u as CelURL).scheme),
      def('url_get_host', 'kubernetes.URL.getHost() -> string', (u) => (u as CelURL).host),
      def('url_get_hostname', 'kubernetes.URL.getHostname() -> string', (u) => splitHostPort((u as CelURL).host)[0]),
      def('url_get_port', 'kubernetes.URL.getPort() -> string', (u) => splitHostPort((u as CelURL).host)[1]),
      def('url_get_escaped_path', 'kubernetes.URL.getEscapedPath() -> string', (u) => escapedPath(u as CelURL)),
      def('url_get_query', 'kubernetes.URL.getQuery() -> map(string, list(string))', (u) => query(u as CelURL)),
    ],
  };
}
