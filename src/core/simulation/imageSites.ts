/**
 * What the web servers of the image catalog answer on their port: nginx and
 * Apache httpd serve their document root from the container's files as they
 * are at each request (the image's welcome page and "It works!" until a
 * volume or a process puts something else there), each with the server's own
 * headers and error pages.
 */
import type { FsEntry } from './containerView';
import { httpDate } from './httpMessage';
import { strftime } from './containerTools';

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

export const nginxErrorPage = `<!DOCTYPE html>
<html>
<head>
<title>Error</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>An error occurred.</h1>
<p>Sorry, the page you are looking for is currently unavailable.<br/>
Please try again later.</p>
<p>If you are the system administrator of this resource then you should check
the error log for details.</p>
<p><em>Faithfully yours, nginx.</em></p>
</body>
</html>
`;

/** The nginx image's web root: what its default server serves. */
export const nginxRoot = '/usr/share/nginx/html';

/** The files the nginx image ships in its web root. */
export const nginxRootFiles: ReadonlyMap<string, string> = new Map([
  [`${nginxRoot}/index.html`, nginxWelcome],
  [`${nginxRoot}/50x.html`, nginxErrorPage],
]);

/**
 * The nginx image's configuration: nginx.conf and its default server, as the
 * entrypoint leaves it (10-listen-on-ipv6-by-default.sh added `listen [::]:80`).
 * The simulated server answers as this configuration does; it does not read it.
 */
export const nginxConfigFiles: ReadonlyMap<string, string> = new Map([
  [
    '/etc/nginx/nginx.conf',
    `
user  nginx;
worker_processes  auto;

error_log  /var/log/nginx/error.log notice;
pid        /var/run/nginx.pid;


events {
    worker_connections  1024;
}


http {
    include       /etc/nginx/mime.types;
    default_type  application/octet-stream;

    log_format  main  '$remote_addr - $remote_user [$time_local] "$request" '
                      '$status $body_bytes_sent "$http_referer" '
                      '"$http_user_agent" "$http_x_forwarded_for"';

    access_log  /var/log/nginx/access.log  main;

    sendfile        on;
    #tcp_nopush     on;

    keepalive_timeout  65;

    #gzip  on;

    include /etc/nginx/conf.d/*.conf;
}
`,
  ],
  [
    '/etc/nginx/conf.d/default.conf',
    `server {
    listen       80;
    listen  [::]:80;
    server_name  localhost;

    #access_log  /var/log/nginx/host.access.log  main;

    location / {
        root   /usr/share/nginx/html;
        index  index.html index.htm;
    }

    #error_page  404              /404.html;

    # redirect server error pages to the static page /50x.html
    #
    error_page   500 502 503 504  /50x.html;
    location = /50x.html {
        root   /usr/share/nginx/html;
    }
}
`,
  ],
]);

/** The web root as the image has it, for a server that is given no container files. */
const nginxImageFiles: ReadonlyMap<string, FsEntry> = new Map<string, FsEntry>([
  [nginxRoot, { type: 'dir', mode: 0o755 }],
  ...[...nginxRootFiles].map(([p, text]): [string, FsEntry] => [p, { type: 'file', content: new TextEncoder().encode(text), mode: 0o644 }]),
]);

/** nginx's mime.types for the extensions a web root usually holds; anything else is its default_type. */
const nginxTypes: Record<string, string> = {
  html: 'text/html', htm: 'text/html', shtml: 'text/html', css: 'text/css', xml: 'text/xml', txt: 'text/plain',
  js: 'application/javascript', json: 'application/json', svg: 'image/svg+xml', svgz: 'image/svg+xml', png: 'image/png',
  gif: 'image/gif', jpg: 'image/jpeg', jpeg: 'image/jpeg', ico: 'image/x-icon', webp: 'image/webp', pdf: 'application/pdf', wasm: 'application/wasm',
};

const decoder = new TextDecoder();

/** A request path as nginx maps it under its root: percent-decoded, `.` and `..` resolved; undefined when it climbs out. */
function rootPath(path: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  const parts: string[] = [];
  for (const seg of decoded.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (!parts.length) return undefined;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.join('/');
}

/**
 * nginx's default server (`root /usr/share/nginx/html; index index.html index.htm;`) over the
 * container's files as they are when a request comes: what the image ships, what a volume mounts
 * there (a ConfigMap as index.html), what a process wrote. A directory without its slash is
 * redirected (301), one without an index is forbidden (403, autoindex is off), anything else missing
 * is nginx's 404 page.
 */
export function nginxSite(version: string, startedAt: number, files: (at: number) => ReadonlyMap<string, FsEntry> = () => nginxImageFiles): (request: string, at: number) => string {
  const modified = httpDate(startedAt);
  const page = (status: string) => `<html>\r\n<head><title>${status}</title></head>\r\n<body>\r\n<center><h1>${status}</h1></center>\r\n<hr><center>nginx/${version}</center>\r\n</body>\r\n</html>\r\n`;
  return (request, at) => {
    const line = requestLine(request);
    const head = (status: string, type: string, length: number, extra: string[] = []) => [`HTTP/1.1 ${status}`, `Server: nginx/${version}`, `Date: ${httpDate(at)}`, `Content-Type: ${type}`, `Content-Length: ${length}`, ...extra, 'Connection: close', '', ''].join('\r\n');
    const error = (status: string, extra: string[] = []) => {
      const body = page(status);
      return head(status, 'text/html', byteLength(body), extra) + (line?.method === 'HEAD' ? '' : body);
    };
    if (!line) return error('400 Bad Request');
    const rel = rootPath(line.path);
    if (rel === undefined) return error('400 Bad Request');
    const fs = files(at);
    let path = rel ? `${nginxRoot}/${rel}` : nginxRoot;
    let entry = fs.get(path);
    if (entry?.type === 'dir') {
      if (!line.path.endsWith('/')) {
        const host = /^host:\s*([^\s:]+)/im.exec(request)?.[1] ?? 'localhost';
        return error('301 Moved Permanently', [`Location: http://${host}${line.path}/`]);
      }
      const index = ['index.html', 'index.htm'].map((i) => `${path}/${i}`).find((p) => fs.get(p)?.type === 'file');
      if (!index) return error('403 Forbidden');
      path = index;
      entry = fs.get(path);
    }
    if (entry?.type !== 'file') return error('404 Not Found');
    if ((entry.mode & 0o004) === 0) return error('403 Forbidden');
    const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';
    const type = nginxTypes[ext] ?? 'application/octet-stream';
    const size = entry.content.byteLength;
    const etag = `"${Math.floor(startedAt / 1000).toString(16)}-${size.toString(16)}"`;
    return head('200 OK', type, size, [`Last-Modified: ${modified}`, `ETag: ${etag}`, 'Accept-Ranges: bytes']) + (line.method === 'HEAD' ? '' : decoder.decode(entry.content));
  };
}

/**
 * The image's access_log line (its `main` format, to /dev/stdout) for one
 * exchange: client address, time, request line, status, body bytes sent,
 * Referer, User-Agent and X-Forwarded-For, so `kubectl logs` shows which
 * Pod served each request.
 */
export function nginxAccessLog(request: string, answer: string, at: number, from: string | undefined): string {
  const first = (request.split('\n')[0] ?? '').replace(/\r$/, '');
  const header = (name: string) => new RegExp(`^${name}:[ \\t]*(.*?)\\r?$`, 'im').exec(request.split(/\r?\n\r?\n/)[0] ?? '')?.[1] || '-';
  const status = /^HTTP\/1\.\d (\d{3})/.exec(answer)?.[1] ?? '000';
  const gap = answer.indexOf('\r\n\r\n');
  const bytes = gap < 0 ? 0 : byteLength(answer.slice(gap + 4));
  return `${from ?? '-'} - - [${strftime('%d/%b/%Y:%H:%M:%S %z', at)}] "${first}" ${status} ${bytes} "${header('Referer')}" "${header('User-Agent')}" "${header('X-Forwarded-For')}"\n`;
}

export const apacheItWorks = '<html><body><h1>It works!</h1></body></html>\n';

/** The httpd image's document root. */
export const apacheRoot = '/usr/local/apache2/htdocs';

/**
 * The page the document root gives for a request path, read from the container's files as they are at
 * the request's time; undefined for no such file, `forbidden` for a directory without an index. Without
 * files: the image's own index page at `/` and /index.html.
 */
function fromRoot(files: ((at: number) => ReadonlyMap<string, FsEntry>) | undefined, root: string, path: string, at: number, index: string): string | undefined | 'forbidden' {
  if (!files) return path === '/' || path === '/index.html' ? index : undefined;
  const rel = rootPath(path);
  if (rel === undefined) return undefined;
  const view = files(at);
  const file = rel ? `${root}/${rel}` : root;
  let e = view.get(file);
  if (e?.type === 'dir') {
    e = view.get(`${file}/index.html`);
    if (e?.type !== 'file') return 'forbidden';
  }
  return e?.type === 'file' ? decoder.decode(e.content) : undefined;
}

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
