/**
 * The authenticating proxy (k8s.io/apiserver/pkg/authentication/request/headerrequest):
 * once the proxy's client certificate verifies against
 * --requestheader-client-ca-file (and its CN is in --requestheader-allowed-names
 * when that is set), the user comes from the first username header with a
 * value, groups from every group header, extra from headers with the extra
 * prefix (key lowercased and percent-decoded). Without a verified proxy
 * certificate the headers are never read.
 */
import { clientCertificateFrom } from './x509';
import type { AuthenticationOutcome, RequestAuthenticator } from './types';
import type { UserInfo } from '../user';

export interface RequestHeaderOptions {
  usernameHeaders: string[];
  uidHeaders?: string[];
  groupHeaders?: string[];
  extraHeaderPrefixes?: string[];
  allowedNames?: string[];
}

function values(headers: Headers, name: string): string[] {
  const v = headers.get(name);
  return v === null ? [] : v.split(', ').filter((x) => x !== '');
}

function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

export function requestHeaderAuthenticator(options: RequestHeaderOptions): RequestAuthenticator {
  const lower = (names: string[] | undefined) => (names ?? []).map((n) => n.trim().toLowerCase()).filter(Boolean);
  const usernameHeaders = lower(options.usernameHeaders);
  const uidHeaders = lower(options.uidHeaders);
  const groupHeaders = lower(options.groupHeaders);
  const prefixes = lower(options.extraHeaderPrefixes);
  return {
    name: 'requestheader',
    authenticate(request): AuthenticationOutcome {
      const cert = clientCertificateFrom(request);
      if (!cert) return { kind: 'none' };
      if (!cert.verifiedBy.includes('requestheader-ca')) return { kind: 'rejected', authenticator: 'requestheader', reason: cert.verifyError ?? 'x509: certificate signed by unknown authority' };
      if (options.allowedNames?.length && !options.allowedNames.includes(cert.commonName)) {
        return { kind: 'rejected', authenticator: 'requestheader', reason: `x509: subject with cn=${cert.commonName} is not in the allowed list` };
      }
      const username = usernameHeaders.map((h) => request.headers.get(h) ?? '').find((v) => v !== '');
      if (!username) return { kind: 'none' };
      const user: UserInfo = { username, groups: groupHeaders.flatMap((h) => values(request.headers, h)) };
      const uid = uidHeaders.map((h) => request.headers.get(h) ?? '').find((v) => v !== '');
      if (uid) user.uid = uid;
      const extra: Record<string, string[]> = {};
      for (const [name] of request.headers) {
        const prefix = prefixes.find((p) => name.startsWith(p));
        if (!prefix) continue;
        const key = unescapeExtraKey(name.slice(prefix.length).toLowerCase());
        (extra[key] ??= []).push(...values(request.headers, name));
      }
      if (Object.keys(extra).length) user.extra = extra;
      return { kind: 'authenticated', authenticator: 'requestheader', response: { user } };
    },
  };
}
