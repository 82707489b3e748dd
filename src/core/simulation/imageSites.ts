/**
 * What the web servers of the image catalog answer on their port out of the
 * box: nginx's welcome page and Apache httpd's "It works!", each with the
 * server's own headers and 404 page, as a fresh container of the image
 * serves them (a GET or HEAD of `/` or the index file; anything else is
 * not found).
 */
import { httpDate } from './httpMessage';
import type { FsEntry } from './containerView';

const byteLength = (s: string) => new TextEncoder().encode(s).byteLength;

/** The request line's method and path, or undefined for what is not an HTTP request. */
function requestLine(request: string): { method: string; path: string } | undefined {
  const m = /^([A-Z]+) (\S+) HTTP\/1\.[01]\r?$/m.exec(request.split('\n')[0] ?? '');
  return m ? { method: m[1]!, path: m[2]!.replace(/[?#].*$/, '') } : undefined;
}

export const nginxWelcome = `<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>If you see this page, the nginx web server is successfully installed and
working. Further configuration is required.</p>

<p>For online documentation and support please refer to
<a href="http://nginx.org/">nginx.org</a>.<br/>
Commercial support is available at
<a href="http://nginx.com/">nginx.com</a>.</p>

<p><em>Thank you for using nginx.</em></p>
</body>
</html>
`;

/** Where nginx's default server and Apache's serve files from. */
export const nginxRoot = '/usr/share/nginx/html';
export const apacheRoot = '/usr/local/apache2/htdocs';

/**
 * The page a document root gives for a request path, read from the
 * container's files as they are at the request's time (a volume mounted
 * there serves what another container wrote); `undefined` for no such file,
 * `forbidden` for a directory without an index. Without files: the image's
 * own index page at `/` and /index.html.
 */
function fromRoot(files: ((at: number) => ReadonlyMap<string, FsEntry>) | undefined, root: string, path: string, at: number, index: string): string | undefined | 'forbidden' {
  if (!files) return path === '/' || path === '/index.html' ? index : undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  const view = files(at);
  const parts: string[] = [];
  for (const seg of decoded.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  const file = `${root}${parts.length ? '/' + parts.join('/') : ''}`;
  let e = view.get(file);
  if (e?.type === 'dir') {
    e = view.get(`${file}/index.html`);
    if (e?.type !== 'file') return 'forbidden';
  }
  return e?.type === 'file' ? new TextDecoder().decode(e.content) : undefined;
}

/** nginx's default server: the files of its document root (the welcome page at `/`), its 404 and 403 pages otherwise. */
export function nginxSite(version: string, startedAt: number, files?: (at: number) => ReadonlyMap<string, FsEntry>): (request: string, at: number) => string {
  const modified = httpDate(startedAt);
  return (request, at) => {
    const line = requestLine(request);
    const head = (status: string, type: string, length: number, extra: string[] = []) => [`HTTP/1.1 ${status}`, `Server: nginx/${version}`, `Date: ${httpDate(at)}`, `Content-Type: ${type}`, `Content-Length: ${length}`, ...extra, 'Connection: close', '', ''].join('\r\n');
    const errorPage = (status: string) => `<html>\r\n<head><title>${status}</title></head>\r\n<body>\r\n<center><h1>${status}</h1></center>\r\n<hr><center>nginx/${version}</center>\r\n</body>\r\n</html>\r\n`;
    if (!line) {
      const body = errorPage('400 Bad Request');
      return head('400 Bad Request', 'text/html', byteLength(body)) + body;
    }
    const page = fromRoot(files, nginxRoot, line.path, at, nginxWelcome);
    if (page !== undefined && page !== 'forbidden') {
      const etag = `"${Math.floor(startedAt / 1000).toString(16)}-${byteLength(page).toString(16)}"`;
      const headers = head('200 OK', 'text/html', byteLength(page), [`Last-Modified: ${modified}`, `ETag: ${etag}`, 'Accept-Ranges: bytes']);
      return headers + (line.method === 'HEAD' ? '' : page);
    }
    const status = page === 'forbidden' ? '403 Forbidden' : '404 Not Found';
    const body = errorPage(status);
    return head(status, 'text/html', byteLength(body)) + (line.method === 'HEAD' ? '' : body);
  };
}

export const apacheItWorks = '<html><body><h1>It works!</h1></body></html>\n';

/** Apache httpd's default document root: its files ("It works!" at `/`), its 404 page otherwise. */
export function apacheSite(version: string, startedAt: number, files?: (at: number) => ReadonlyMap<string, FsEntry>): (request: string, at: number) => string {
  const modified = httpDate(startedAt);
  return (request, at) => {
    const line = requestLine(request);
    const head = (status: string, length: number, extra: string[] = []) => [`HTTP/1.1 ${status}`, `Date: ${httpDate(at)}`, `Server: Apache/${version} (Unix)`, ...extra, `Content-Length: ${length}`, 'Connection: close', `Content-Type: ${status.startsWith('200') ? 'text/html' : 'text/html; charset=iso-8859-1'}`, '', ''].join('\r\n');
    const page = line && fromRoot(files, apacheRoot, line.path, at, apacheItWorks);
    if (line && page !== undefined && page !== 'forbidden') {
      return head('200 OK', byteLength(page), [`Last-Modified: ${modified}`, 'Accept-Ranges: bytes']) + (line.method === 'HEAD' ? '' : page);
    }
    const status = line ? '404 Not Found' : '400 Bad Request';
    const body = line
      ? '<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>404 Not Found</title>\n</head><body>\n<h1>Not Found</h1>\n<p>The requested URL was not found on this server.</p>\n</body></html>\n'
      : '<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>400 Bad Request</title>\n</head><body>\n<h1>Bad Request</h1>\n<p>Your browser sent a request that this server could not understand.<br />\n</p>\n</body></html>\n';
    return head(status, byteLength(body)) + (line?.method === 'HEAD' ? '' : body);
  };
}
