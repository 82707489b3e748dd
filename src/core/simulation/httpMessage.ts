/**
 * HTTP/1.x as the simulated network's clients and servers write and read
 * it: the date servers stamp, and a response's status line, header lines
 * and body as a client (wget, curl, the API server's proxy, the kubelet's
 * prober) takes it apart.
 */

/** An HTTP date (RFC 7231's IMF-fixdate, which toUTCString writes). */
export const httpDate = (ms: number): string => new Date(ms).toUTCString();

export interface HttpResponse {
  statusLine: string;
  status: number;
  /** The header lines as sent, without their line ends. */
  headerLines: string[];
  head: string;
  body: string;
}

/** A response's parts; undefined when it does not start with an HTTP status line. */
export function parseHttpResponse(text: string): HttpResponse | undefined {
  const m = /\r?\n\r?\n/.exec(text);
  const head = m ? text.slice(0, m.index + m[0].length) : text;
  const body = m ? text.slice(m.index + m[0].length) : '';
  const lines = head.split(/\r?\n/).filter((l, i, all) => l || i < all.length - 2);
  const statusLine = lines[0] ?? '';
  const s = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(statusLine);
  if (!s) return undefined;
  return { statusLine, status: Number(s[1]), headerLines: lines.slice(1).filter((l) => l), head, body };
}
