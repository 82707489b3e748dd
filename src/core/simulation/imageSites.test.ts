/** nginx's default server over a container's files, answered as nginx answers a client on port 80. */
import { describe, expect, it } from 'vitest';
import type { FsEntry } from './containerView';
import { nginxRoot, nginxRootFiles, nginxSite } from './imageSites';
import { parseHttpResponse } from './httpMessage';

const t0 = Date.UTC(2026, 10, 28, 17, 18, 10);
const enc = new TextEncoder();

function files(extra: Record<string, string | { mode: number; text: string } | 'dir'> = {}): Map<string, FsEntry> {
  const m = new Map<string, FsEntry>();
  for (const d of ['/', '/usr', '/usr/share', '/usr/share/nginx', nginxRoot]) m.set(d, { type: 'dir', mode: 0o755 });
  for (const [p, text] of nginxRootFiles) m.set(p, { type: 'file', content: enc.encode(text), mode: 0o644 });
  for (const [p, v] of Object.entries(extra)) m.set(p, v === 'dir' ? { type: 'dir', mode: 0o755 } : { type: 'file', content: enc.encode(typeof v === 'string' ? v : v.text), mode: typeof v === 'string' ? 0o644 : v.mode });
  return m;
}

/** The answer, its header names lowercased. */
function ask(fs: Map<string, FsEntry>, request: string) {
  const r = parseHttpResponse(nginxSite('1.27.3', t0, () => fs)(request, t0 + 1000))!;
  const headers = new Map(r.headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as const));
  return { status: r.status, headers, body: r.body };
}

describe('nginx default server', () => {
  it('the welcome page with nginx headers; HEAD has no body', () => {
    const r = ask(files(), 'GET / HTTP/1.1\r\nHost: 10.244.1.5\r\n\r\n');
    expect(r.status).toBe(200);
    expect(Object.fromEntries(r.headers)).toMatchObject({ server: 'nginx/1.27.3', 'content-type': 'text/html', 'content-length': '615', etag: `"${Math.floor(t0 / 1000).toString(16)}-267"`, 'last-modified': 'Sat, 28 Nov 2026 17:18:10 GMT' });
    expect(ask(files(), 'HEAD /index.html HTTP/1.1\r\n\r\n').body).toBe('');
  });

  it('what a process wrote is served as it is now, typed by its extension', () => {
    const fs = files({ [`${nginxRoot}/data.json`]: '{"a":1}\n', [`${nginxRoot}/blob.bin`]: 'x' });
    expect(ask(fs, 'GET /data.json HTTP/1.1\r\n\r\n')).toMatchObject({ status: 200, body: '{"a":1}\n' });
    expect(ask(fs, 'GET /data.json HTTP/1.1\r\n\r\n').headers.get('content-type')).toBe('application/json');
    expect(ask(fs, 'GET /blob.bin HTTP/1.1\r\n\r\n').headers.get('content-type')).toBe('application/octet-stream');
    fs.set(`${nginxRoot}/index.html`, { type: 'file', content: enc.encode('changed\n'), mode: 0o644 });
    expect(ask(fs, 'GET / HTTP/1.1\r\n\r\n').body).toBe('changed\n');
  });

  it('a directory: 301 to its slash (absolute, on the Host asked), its index, or 403; unreadable files are 403, missing ones 404', () => {
    const fs = files({ [`${nginxRoot}/docs`]: 'dir', [`${nginxRoot}/docs/index.htm`]: 'docs\n', [`${nginxRoot}/bare`]: 'dir', [`${nginxRoot}/secret.txt`]: { mode: 0o600, text: 's' } });
    const moved = ask(fs, 'GET /docs HTTP/1.1\r\nHost: web.default.svc:80\r\n\r\n');
    expect(moved.status).toBe(301);
    expect(moved.headers.get('location')).toBe('http://web.default.svc/docs/');
    expect(moved.body).toContain('<center><h1>301 Moved Permanently</h1></center>');
    expect(ask(fs, 'GET /docs/ HTTP/1.1\r\n\r\n').body).toBe('docs\n');
    expect(ask(fs, 'GET /bare/ HTTP/1.1\r\n\r\n').status).toBe(403);
    expect(ask(fs, 'GET /secret.txt HTTP/1.1\r\n\r\n').status).toBe(403);
    expect(ask(fs, 'GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\n\r\n').status).toBe(400);
    expect(ask(fs, 'GET /nope HTTP/1.1\r\n\r\n')).toMatchObject({ status: 404, body: '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx/1.27.3</center>\r\n</body>\r\n</html>\r\n' });
    expect(ask(fs, 'garbage').status).toBe(400);
  });
});
