/**
 * The images kubesim knows: widely used repositories with their real image
 * config (Entrypoint, Cmd, WorkingDir, Env, User), the tools on their PATH,
 * their own programs (an entrypoint script, a server and the lines it logs at
 * start), and the tags each repository publishes (its tag grammar over the
 * versions it has released), so that a tag it does not publish fails to pull.
 */
import { apacheItWorks, apacheRoot, apacheSite, nginxAccessLog, nginxConfigFiles, nginxRootFiles, nginxSite } from './imageSites';
import type { ImageProgram, ImageProgramContext, ImageProgramRun, SimulatedImage } from './image';
import type { WorkerReload, WorkerRespawn } from './processIo';
import { parseImageReference, type ImageReference } from './imageReference';
import { node as nodeInterpreter, python as pythonInterpreter } from './interpreterRepl';
import { klogLine, readFile, strftime } from './containerTools';
import { resolveLinks } from './containerFiles';
import { sha512 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';
import { encodeText } from './byteText';
import { exchangeHash, wireLength, type DnsExchange } from './clusterDns';
import { stress, vishStress } from './stressPrograms';
import { alpineOs, debianOs, ubuntuOs } from './packageTools';
import { nodeKernelRelease } from './nodes';
import { httpDate } from './httpMessage';

/** The shell tools every catalog image has (coreutils or busybox's). */
const coreTools = ['[', 'basename', 'cat', 'chmod', 'cp', 'cut', 'date', 'df', 'dirname', 'echo', 'env', 'expr', 'false', 'find', 'grep', 'head', 'hostname', 'id', 'ls', 'md5sum', 'mkdir', 'mount', 'mv', 'nproc', 'printenv', 'printf', 'pwd', 'readlink', 'rm', 'sed', 'seq', 'sh', 'sha1sum', 'sha256sum', 'sha512sum', 'sleep', 'sort', 'tail', 'tar', 'tee', 'test', 'touch', 'tr', 'true', 'uname', 'uniq', 'wc', 'which', 'whoami', 'yes'];
/** busybox's image: its applets, the network ones included (httpd, ifconfig, ip, kill, nc, netstat, nslookup, ping, ps, wget; no curl). */
const busyboxTools = [...coreTools, 'free', 'httpd', 'ifconfig', 'ip', 'kill', 'nc', 'netstat', 'nslookup', 'ping', 'ps', 'wget'];
/** Alpine's busybox is built without httpd (busybox-extras has it). */
const alpineTools = [...coreTools, 'apk', 'free', 'ifconfig', 'ip', 'kill', 'nc', 'netstat', 'nslookup', 'ping', 'ps', 'wget'];
/** Debian and Ubuntu's coreutils, grep, sed, dash as sh and bash (no wget, curl or nslookup in the slim images). */
const debianTools = [...coreTools, 'apt', 'apt-get', 'bash'];
const dockerPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

interface Repository {
  /** Its full names (`docker.io/library/nginx`). */
  names: readonly string[];
  /** Whether it publishes the tag. */
  publishes(tag: string): boolean;
  /** The image a published tag (or a digest) names. */
  image(tag: string | undefined): SimulatedImage;
}

/**
 * A tag grammar: a word (latest, stable...) or a version (1, 1.27, 1.27.3)
 * within the released ones, then optionally one of the variant suffixes
 * (`-alpine`, `-slim`...), which also stand alone as tags when bare is set.
 */
function tagGrammar(words: readonly string[], released: (v: readonly number[]) => boolean, suffixes: readonly string[], bareSuffixes = true): (tag: string) => boolean {
  const base = (b: string) => words.includes(b) || (/^\d+(\.\d+){0,2}$/.test(b) && released(b.split('.').map(Number)));
  return (tag) => {
    if (base(tag)) return true;
    for (const s of suffixes) {
      if (bareSuffixes && tag === s) return true;
      if (tag.endsWith(`-${s}`) && base(tag.slice(0, -s.length - 1))) return true;
    }
    return false;
  };
}

/** A released version: major within range, minor up to its last, patch up to its last (defaults generous). */
const within = (majors: [number, number], lastMinor: (major: number) => number = () => 99, lastPatch: (major: number, minor: number) => number = () => 99) =>
  (v: readonly number[]) => {
    const [major, minor, patch] = v as [number, number | undefined, number | undefined];
    if (major < majors[0] || major > majors[1]) return false;
    if (minor !== undefined && minor > lastMinor(major)) return false;
    return patch === undefined || minor === undefined || patch <= lastPatch(major, minor);
  };

/** The version a tag names, or the repository's current one for a word tag. */
function versionOf(tag: string | undefined, current: string, latestOf: (prefix: string) => string | undefined = () => undefined): string {
  const v = /^(\d+(?:\.\d+){0,2})/.exec(tag ?? '')?.[1];
  if (!v) return current;
  if (v.split('.').length === 3) return v;
  return latestOf(v) ?? (current.startsWith(`${v}.`) ? current : v.split('.').length === 2 ? `${v}.0` : `${v}.0.0`);
}

/** The milliseconds of a time, three digits (the servers' log stamps carry them). */
const millis = (ms: number) => strftime('%N', ms).slice(0, 3);

const out = (text: string) => ({ stream: 1 as const, text });
const err = (text: string) => ({ stream: 2 as const, text });
const program = (run: (args: readonly string[], env: ReadonlyMap<string, string>, ctx: ImageProgramContext) => ImageProgramRun): ImageProgram => ({ run });
/** A server: writes its start-up lines, then runs until stopped. */
const serving = (output: ImageProgramRun['output']): ImageProgramRun => ({ output });
/** A server that listens on its ports while it runs. */
const listening = (listens: NonNullable<ImageProgramRun['listens']>, output: ImageProgramRun['output']): ImageProgramRun => ({ output, listens });
const programs = (entries: [string, ImageProgram][]): ReadonlyMap<string, ImageProgram> => new Map(entries);

function image(config: Partial<SimulatedImage> & Pick<SimulatedImage, 'cmd'>): SimulatedImage {
  // The distribution: Alpine's or Debian's by the tools it has, unless the repository names its release.
  const os = config.os ?? (config.tools?.includes('apk') ? alpineOs : config.tools?.includes('apt-get') ? debianOs : undefined);
  return { entrypoint: [], workingDir: '', env: [['PATH', dockerPath]], programs: new Map(), ...config, ...(os ? { os } : {}) };
}

// ---- base images ----

const busybox: Repository = {
  names: ['docker.io/library/busybox'],
  publishes: tagGrammar(['latest', 'stable', 'unstable'], within([1, 1], () => 37, (_m, minor) => (minor >= 36 ? 1 : 4)), ['musl', 'glibc', 'uclibc']),
  image: (tag) => image({ cmd: ['sh'], env: [['PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin']], tools: busyboxTools, busybox: busyboxRelease(tag) }),
};

/** The busybox release a tag names (`1.28` is its last, 1.28.4; `latest` and the variants' names 1.37.0). */
function busyboxRelease(tag: string | undefined): string {
  const v = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(tag ?? '');
  if (!v) return '1.37.0';
  return `${v[1]}.${v[2]}.${v[3] ?? ({ 28: 4, 27: 2, 26: 2, 36: 1 } as Record<string, number>)[v[2]!] ?? 0}`;
}

const alpine: Repository = {
  names: ['docker.io/library/alpine'],
  publishes: tagGrammar(['latest', 'edge'], within([3, 3], () => 23, () => 6), []),
  image: (tag) => {
    const v = /^(3\.\d+)(\.\d+)?$/.exec(tag ?? '');
    return image({ cmd: ['/bin/sh'], tools: alpineTools, ...(v ? { os: { id: 'alpine', version: v[2] ? tag! : `${v[1]}.0` } } : {}) });
  },
};

const ubuntuReleases: ReadonlyArray<readonly [string, string]> = [['14.04', 'trusty'], ['16.04', 'xenial'], ['18.04', 'bionic'], ['20.04', 'focal'], ['22.04', 'jammy'], ['24.04', 'noble'], ['24.10', 'oracular'], ['25.04', 'plucky']];
const debianReleases: ReadonlyArray<readonly [string, string]> = [['9', 'stretch'], ['10', 'buster'], ['11', 'bullseye'], ['12', 'bookworm'], ['13', 'trixie']];
const ubuntuCodenames = ['trusty', 'xenial', 'bionic', 'focal', 'jammy', 'noble', 'oracular', 'plucky'];
const ubuntu: Repository = {
  names: ['docker.io/library/ubuntu'],
  publishes: (tag) => ['latest', 'rolling', 'devel', ...ubuntuCodenames].includes(tag) || /^(1[4-9]|2[0-5])\.(04|10)$/.test(tag) || new RegExp(`^(${ubuntuCodenames.join('|')})-20\\d{6}(\\.\\d+)?$`).test(tag),
  image: (tag) => {
    const release = ubuntuReleases.find(([version, codename]) => tag?.startsWith(codename) || tag?.startsWith(version));
    return image({ cmd: ['/bin/bash'], tools: debianTools, os: release ? { id: 'ubuntu', version: release[0], codename: release[1] } : ubuntuOs });
  },
};

const debianCodenames = ['stretch', 'buster', 'bullseye', 'bookworm', 'trixie', 'sid', 'stable', 'oldstable', 'testing', 'unstable'];
const debian: Repository = {
  names: ['docker.io/library/debian'],
  publishes: (tag) => tag === 'latest' || tagGrammar(debianCodenames, within([9, 13], () => 11), ['slim'], false)(tag) || new RegExp(`^(${debianCodenames.join('|')})(-slim)?-20\\d{6}$`).test(tag),
  image: (tag) => {
    const release = debianReleases.find(([version, codename]) => tag?.startsWith(codename) || tag === version || tag?.startsWith(`${version}-`) || tag?.startsWith(`${version}.`));
    return image({ cmd: ['bash'], tools: debianTools, os: release ? { id: 'debian', version: release[0], codename: release[1] } : debianOs });
  },
};

// ---- servers ----

/** The entrypoint scripts' `exec "$@"`, with dash's or bash's message when the command is not found. */
const execArgs = (args: readonly string[], script: string, line: number, shell: 'dash' | 'bash') => ({
  argv: args,
  notFound: shell === 'dash' ? `${script}: ${line}: exec: ${args[0]}: not found\n` : `${script}: line ${line}: exec: ${args[0]}: not found\n`,
});

const nginxStamp = (ms: number) => strftime('%Y/%m/%d %H:%M:%S', ms);

/** The scripts the entrypoint runs (their names as it logs them; what they do is the entrypoint program's). */
const nginxEntrypointScripts = ['10-listen-on-ipv6-by-default.sh', '15-local-resolvers.envsh', '20-envsubst-on-templates.sh', '30-tune-worker-processes.sh'].map((name): [string, string] => [`/docker-entrypoint.d/${name}`, '#!/bin/sh\n# vim:sw=4:ts=4:et\n\nset -e\n']);

function nginxImage(tag: string | undefined): SimulatedImage {
  const version = versionOf(tag, '1.27.3', (v) => ({ '1': '1.27.3', '1.27': '1.27.3', '1.26': '1.26.2', '1.25': '1.25.5', '1.24': '1.24.0' } as Record<string, string>)[v]);
  const alpineVariant = /alpine/.test(tag ?? '');
  const entrypoint = program((args, env) => {
    const nginx = args[0] === 'nginx' || args[0] === 'nginx-debug';
    const quiet = env.has('NGINX_ENTRYPOINT_QUIET_LOGS') && env.get('NGINX_ENTRYPOINT_QUIET_LOGS') !== '';
    const lines = !nginx || quiet ? [] : [
      '/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration',
      '/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/',
      '/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh',
      '10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf',
      '10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf',
      '/docker-entrypoint.sh: Sourcing /docker-entrypoint.d/15-local-resolvers.envsh',
      '/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh',
      '/docker-entrypoint.sh: Launching /docker-entrypoint.d/30-tune-worker-processes.sh',
      '/docker-entrypoint.sh: Configuration complete; ready for start up',
    ];
    return { output: lines.map((l) => out(`${l}\n`)), exec: execArgs(args, '/docker-entrypoint.sh', 47, 'dash') };
  });
  const nginx = program((args, _env, ctx) => {
    if (args.includes('-v') || args.includes('-V')) return { output: [err(`nginx version: nginx/${version}\n`)], exitCode: 0 };
    if (args.includes('-t')) return { output: [err('nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\nnginx: configuration file /etc/nginx/nginx.conf test is successful\n')], exitCode: 0 };
    const t = nginxStamp(ctx.now);
    // The master names itself by its pid: 1, or the one a shared PID namespace gave it.
    const me = `${ctx.pid ?? 1}#${ctx.pid ?? 1}`;
    const notice = (m: string) => err(`${t} [notice] ${me}: ${m}\n`);
    // The pids the entrypoint's scripts leave the two workers the log names.
    const workerPids = [29, 30];
    // The default server listens on port 80 (and [::]:80) with the welcome page; its master process retitles itself.
    const title = `nginx: master process ${['nginx', ...args].join(' ')}`;
    const run = listening([{ port: 80, addresses: ['0.0.0.0', '::'], respond: nginxSite(version, ctx.now, ctx.files), accessLog: nginxAccessLog }], [
      notice('using the "epoll" event method'),
      notice(`nginx/${version}`),
      notice(alpineVariant ? 'built by gcc 13.2.1 20240309 (Alpine 13.2.1_git20240309) ' : 'built by gcc 12.2.0 (Debian 12.2.0-14) '),
      notice(`OS: Linux ${nodeKernelRelease}`),
      notice('getrlimit(RLIMIT_NOFILE): 1048576:1048576'),
      notice('start worker processes'),
      ...workerPids.map((pid) => notice(`start worker process ${pid}`)),
    ]);
    // A worker that ends is reaped and replaced (ngx_reap_children): a graceful exit on TERM or INT, killed by KILL.
    const respawn: WorkerRespawn = (worker, signal, newPid, at) => {
      const s = nginxStamp(at);
      const ended = signal === 'KILL' ? `${s} [alert] ${me}: worker process ${worker.pid} exited on signal 9\n` : `${s} [notice] ${me}: worker process ${worker.pid} exited with code 0\n`;
      return `${s} [notice] ${me}: signal 17 (SIGCHLD) received from ${worker.pid}\n${ended}${s} [notice] ${me}: start worker process ${newPid}\n${s} [notice] ${me}: signal 29 (SIGIO) received\n`;
    };
    // SIGHUP: it reads its configuration again, starts new workers and lets the old ones finish (ngx_signal_handler, ngx_reap_children).
    const reload: WorkerReload = (old, pids, from, at) => {
      const s = nginxStamp(at);
      const lines = [`${s} [notice] ${me}: signal 1 (SIGHUP) received from ${from}, reconfiguring`, `${s} [notice] ${me}: reconfiguring`, `${s} [notice] ${me}: using the "epoll" event method`, `${s} [notice] ${me}: start worker processes`, ...pids.map((pid) => `${s} [notice] ${me}: start worker process ${pid}`)];
      for (const w of old) lines.push(`${s} [notice] ${w.pid}#${w.pid}: gracefully shutting down`, `${s} [notice] ${w.pid}#${w.pid}: exiting`, `${s} [notice] ${w.pid}#${w.pid}: exit`);
      for (const w of old) lines.push(`${s} [notice] ${me}: signal 17 (SIGCHLD) received from ${w.pid}`, `${s} [notice] ${me}: worker process ${w.pid} exited with code 0`);
      lines.push(`${s} [notice] ${me}: signal 29 (SIGIO) received`);
      return lines.map((l) => l + '\n').join('');
    };
    // Its workers run as the image's nginx user (101).
    return { ...run, title, workers: workerPids.map((pid) => ({ pid, title: 'nginx: worker process', user: 'nginx', uid: 101 })), respawn, reload };
  });
  return image({
    entrypoint: ['/docker-entrypoint.sh'],
    cmd: ['nginx', '-g', 'daemon off;'],
    env: [['PATH', dockerPath], ['NGINX_VERSION', version], ['NJS_VERSION', '0.8.7'], ['NJS_RELEASE', '1~bookworm'], ['PKG_RELEASE', '1~bookworm'], ['DYNPKG_RELEASE', '1~bookworm']],
    tools: alpineVariant ? alpineTools : debianTools,
    programs: programs([['/docker-entrypoint.sh', entrypoint], ['/usr/sbin/nginx', nginx], ['/usr/sbin/nginx-debug', nginx]]),
    files: new Map([...nginxRootFiles, ...nginxConfigFiles, ...nginxEntrypointScripts]),
  });
}

const nginxRepo: Repository = {
  names: ['docker.io/library/nginx'],
  publishes: tagGrammar(['latest', 'mainline', 'stable'], within([1, 1], () => 29, (_m, minor) => ({ 29: 3, 28: 0, 27: 5, 26: 3, 25: 5, 24: 0 } as Record<number, number>)[minor] ?? 2), ['alpine', 'alpine-slim', 'alpine-perl', 'alpine-otel', 'perl', 'otel', 'bookworm', 'bookworm-perl', 'bookworm-otel', 'mainline-alpine', 'stable-alpine']),
  image: nginxImage,
};

const apacheStamp = (ms: number) => `${strftime('%a %b %d %H:%M:%S', ms)}.${millis(ms)}000 ${strftime('%Y', ms)}`;

const httpd: Repository = {
  names: ['docker.io/library/httpd'],
  publishes: tagGrammar(['latest'], within([2, 2], () => 4, () => 62), ['alpine', 'bookworm', 'alpine3.21', 'alpine3.20']),
  image: (tag) => {
    const version = versionOf(tag, '2.4.62');
    const foreground = program((args, _env, ctx) => {
      const t = apacheStamp(ctx.now);
      const fqdn = `AH00558: httpd: Could not reliably determine the server's fully qualified domain name, using ${ctx.podIP ?? ctx.hostname}. Set the 'ServerName' directive globally to suppress this message\n`;
      return listening([{ port: 80, addresses: ['::'], respond: apacheSite(version, ctx.now, ctx.files) }], [
        err(fqdn),
        err(fqdn),
        err(`[${t}] [mpm_event:notice] [pid 1:tid 1] AH00489: Apache/${version} (Unix) configured -- resuming normal operations\n`),
        err(`[${t}] [core:notice] [pid 1:tid 1] AH00094: Command line: 'httpd -D FOREGROUND${args.length ? ` ${args.join(' ')}` : ''}'\n`),
      ]);
    });
    return image({
      cmd: ['httpd-foreground'],
      workingDir: '/usr/local/apache2',
      env: [['PATH', `/usr/local/apache2/bin:${dockerPath}`], ['HTTPD_PREFIX', '/usr/local/apache2'], ['HTTPD_VERSION', version]],
      tools: /alpine/.test(tag ?? '') ? alpineTools : debianTools,
      programs: programs([['/usr/local/bin/httpd-foreground', foreground], ['/usr/local/apache2/bin/httpd', foreground]]),
      files: new Map([[`${apacheRoot}/index.html`, apacheItWorks]]),
    });
  },
};

const redisStamp = (ms: number) => `${strftime('%d %b %Y %H:%M:%S', ms)}.${millis(ms)}`;

const redis: Repository = {
  names: ['docker.io/library/redis'],
  publishes: tagGrammar(['latest'], within([2, 8], (m) => (m === 8 ? 4 : m === 7 ? 4 : 9), () => 20), ['alpine', 'bookworm', 'alpine3.21', 'alpine3.20']),
  image: (tag) => {
    const version = versionOf(tag, '7.4.1', (v) => ({ '7': '7.4.1', '7.4': '7.4.1', '7.2': '7.2.6', '6': '6.2.16', '6.2': '6.2.16' } as Record<string, string>)[v]);
    const entrypoint = program((args) => {
      // A first argument that is an option or a .conf file is redis-server's.
      const argv = args.length && (args[0]!.startsWith('-') || args[0]!.endsWith('.conf')) ? ['redis-server', ...args] : args;
      return { output: [], exec: execArgs(argv, '/usr/local/bin/docker-entrypoint.sh', 24, 'dash') };
    });
    const server = program((args, _env, ctx) => {
      if (args.includes('--version') || args.includes('-v')) return { output: [out(`Redis server v=${version} sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=a1b2c3d4e5f60718\n`)], exitCode: 0 };
      const line = (role: 'C' | 'M', kind: '*' | '#', m: string) => out(`1:${role} ${redisStamp(ctx.now)} ${kind} ${m}\n`);
      const port = args[args.indexOf('--port') + 1] && args.includes('--port') ? args[args.indexOf('--port') + 1]! : '6379';
      return serving([
        line('C', '*', 'oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo'),
        line('C', '*', `Redis version=${version}, bits=64, commit=00000000, modified=0, pid=1, just started`),
        ...(args.some((a) => a.endsWith('.conf')) ? [line('C', '*', `Configuration loaded`)] : [line('C', '#', 'Warning: no config file specified, using the default config. In order to specify a config file use redis-server /path/to/redis.conf')]),
        line('M', '*', 'monotonic clock: POSIX clock_gettime'),
        line('M', '*', `Running mode=standalone, port=${port}.`),
        line('M', '*', 'Server initialized'),
        line('M', '*', 'Ready to accept connections tcp'),
      ]);
    });
    return image({
      entrypoint: ['docker-entrypoint.sh'],
      cmd: ['redis-server'],
      workingDir: '/data',
      env: [['PATH', dockerPath], ['REDIS_VERSION', version]],
      tools: /alpine/.test(tag ?? '') ? alpineTools : debianTools,
      programs: programs([['/usr/local/bin/docker-entrypoint.sh', entrypoint], ['/usr/local/bin/redis-server', server]]),
    });
  },
};

const postgresStamp = (ms: number) => `${strftime('%Y-%m-%d %H:%M:%S', ms)}.${millis(ms)} UTC`;

/** docker-library/postgres's docker_verify_minimum_env. */
const postgresNoPassword = `Error: Database is uninitialized and superuser password is not specified.
       You must specify POSTGRES_PASSWORD to a non-empty value for the
       superuser. For example, "-e POSTGRES_PASSWORD=password" on "docker run".

       You may also use "POSTGRES_HOST_AUTH_METHOD=trust" to allow all
       connections without a password. This is *not* recommended.

       See PostgreSQL documentation about "trust":
       https://www.postgresql.org/docs/current/auth-trust.html
`;

const postgres: Repository = {
  names: ['docker.io/library/postgres'],
  publishes: tagGrammar(['latest'], (v) => (v[0]! === 9 ? v.length === 1 || v[1]! <= 6 : within([10, 18], () => 22)(v)) && v.length <= (v[0]! === 9 ? 3 : 2), ['alpine', 'bookworm', 'bullseye', 'alpine3.21', 'alpine3.20']),
  image: (tag) => {
    const version = versionOf(tag, '17.2', (v) => (/^\d+$/.test(v) ? ({ '17': '17.2', '16': '16.6', '15': '15.10', '14': '14.15', '13': '13.18' } as Record<string, string>)[v] : v));
    const major = version.split('.')[0]!;
    const entrypoint = program((args, env, ctx) => {
      const argv = args.length && args[0]!.startsWith('-') ? ['postgres', ...args] : args;
      if (argv[0] !== 'postgres') return { output: [], exec: execArgs(argv, '/usr/local/bin/docker-entrypoint.sh', 359, 'bash') };
      if (!env.get('POSTGRES_PASSWORD') && env.get('POSTGRES_HOST_AUTH_METHOD') !== 'trust') return { output: [err(postgresNoPassword)], exitCode: 1 };
      const t = postgresStamp(ctx.now);
      const log = (pid: number, m: string) => err(`${t} [${pid}] LOG:  ${m}\n`);
      return {
        output: [
          out('The files belonging to this database system will be owned by user "postgres".\nThis user must also own the server process.\n\n'),
          out('The database cluster will be initialized with locale "en_US.utf8".\nThe default database encoding has accordingly been set to "UTF8".\nThe default text search configuration will be set to "english".\n\n'),
          out('Success. You can now start the database server using:\n\n    pg_ctl -D /var/lib/postgresql/data -l logfile start\n\n'),
          out('\nPostgreSQL init process complete; ready for start up.\n\n'),
          log(1, `starting PostgreSQL ${version} (Debian ${version}-1.pgdg120+1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit`),
          log(1, 'listening on IPv4 address "0.0.0.0", port 5432'),
          log(1, 'listening on IPv6 address "::", port 5432'),
          log(1, 'listening on Unix socket "/var/run/postgresql/.s.PGSQL.5432"'),
          log(64, `database system was shut down at ${t}`),
          log(1, 'database system is ready to accept connections'),
        ],
      };
    });
    return image({
      entrypoint: ['docker-entrypoint.sh'],
      cmd: ['postgres'],
      env: [['PATH', `${dockerPath}:/usr/lib/postgresql/${major}/bin`], ['PG_MAJOR', major], ['PG_VERSION', version], ['PGDATA', '/var/lib/postgresql/data']],
      tools: /alpine/.test(tag ?? '') ? alpineTools : debianTools,
      programs: programs([['/usr/local/bin/docker-entrypoint.sh', entrypoint], [`/usr/lib/postgresql/${major}/bin/postgres`, program(() => ({ output: [err('"root" execution of the PostgreSQL server is not permitted.\nThe server must be started under an unprivileged user ID to prevent\npossible system security compromise.  See the documentation for\nmore information on how to properly start the server.\n')], exitCode: 1 }))]]),
    });
  },
};

const mysqlStamp = (ms: number) => `${strftime('%Y-%m-%d %H:%M:%S', ms)}+00:00`;

const mysql: Repository = {
  names: ['docker.io/library/mysql'],
  publishes: tagGrammar(['latest', 'lts', 'innovation'], (v) => (v[0] === 5 ? v[1] === undefined || v[1] === 7 : v[0] === 8 ? v[1] === undefined || v[1] === 0 || v[1] === 4 : v[0] === 9 && (v[1] === undefined || v[1] <= 5)) && (v[2] === undefined || v[2] <= 44), ['oracle', 'debian', 'oraclelinux9', 'bookworm']),
  image: (tag) => {
    const version = versionOf(tag, '9.1.0', (v) => ({ '9': '9.1.0', '8': '8.4.3', '8.4': '8.4.3', '8.0': '8.0.40', '5': '5.7.44', '5.7': '5.7.44' } as Record<string, string>)[v]);
    const entrypoint = program((args, env, ctx) => {
      const argv = args.length && args[0]!.startsWith('-') ? ['mysqld', ...args] : args;
      if (argv[0] !== 'mysqld') return { output: [], exec: execArgs(argv, '/usr/local/bin/docker-entrypoint.sh', 438, 'bash') };
      const t = mysqlStamp(ctx.now);
      const note = (m: string) => out(`${t} [Note] [Entrypoint]: ${m}\n`);
      const started = note(`Entrypoint script for MySQL Server ${version}-1.el9 started.`);
      const start = [started, note("Switching to dedicated user 'mysql'"), started];
      if (!env.get('MYSQL_ROOT_PASSWORD') && !env.get('MYSQL_ALLOW_EMPTY_PASSWORD') && !env.get('MYSQL_RANDOM_ROOT_PASSWORD')) {
        return { output: [...start, err(`${t} [ERROR] [Entrypoint]: Database is uninitialized and password option is not specified\n    You need to specify one of the following as an environment variable:\n    - MYSQL_ROOT_PASSWORD\n    - MYSQL_ALLOW_EMPTY_PASSWORD\n    - MYSQL_RANDOM_ROOT_PASSWORD\n`)], exitCode: 1 };
      }
      const server = (m: string) => err(`${t.replace('+00:00', '.000000Z')} 0 [System] [MY-0${m}\n`);
      return serving([
        ...start,
        note('Initializing database files'),
        note('Database files initialized'),
        note('Starting temporary server'),
        note('Temporary server started.'),
        note('Stopping temporary server'),
        note('Temporary server stopped'),
        out('\n'),
        note('MySQL init process done. Ready for start up.'),
        out('\n'),
        server(`10116] [Server] /usr/sbin/mysqld (mysqld ${version}) starting as process 1`),
        server(`10931] [Server] /usr/sbin/mysqld: ready for connections. Version: '${version}'  socket: '/var/run/mysqld/mysqld.sock'  port: 3306  MySQL Community Server - GPL.`),
      ]);
    });
    return image({
      entrypoint: ['docker-entrypoint.sh'],
      cmd: ['mysqld'],
      env: [['PATH', dockerPath], ['GOSU_VERSION', '1.17'], ['MYSQL_MAJOR', version.split('.').slice(0, 2).join('.')], ['MYSQL_VERSION', `${version}-1.el9`], ['MYSQL_SHELL_VERSION', `${version}-1.el9`]],
      tools: debianTools,
      programs: programs([['/usr/local/bin/docker-entrypoint.sh', entrypoint]]),
    });
  },
};

// ---- language runtimes ----

/** A quoted string literal's text, for the one-line scripts people pass with -c / -e. */
const literal = (code: string, fn: string): string | undefined => new RegExp(`^\\s*${fn}\\(\\s*(['"])(.*)\\1\\s*\\)\\s*;?\\s*$`).exec(code)?.[2];

const python: Repository = {
  names: ['docker.io/library/python'],
  publishes: tagGrammar(['latest'], within([2, 3], (m) => (m === 3 ? 14 : 7), () => 20), ['slim', 'alpine', 'bookworm', 'bullseye', 'slim-bookworm', 'slim-bullseye', 'alpine3.21', 'alpine3.20']),
  image: (tag) => {
    const version = versionOf(tag, '3.13.1', (v) => ({ '3': '3.13.1', '3.13': '3.13.1', '3.12': '3.12.8', '3.11': '3.11.11', '3.10': '3.10.16', '3.9': '3.9.21' } as Record<string, string>)[v]);
    // The compiler of the official image's build: Debian's (bookworm, bullseye) or Alpine's.
    const compiler = /alpine3\.20/.test(tag ?? '') ? 'GCC 13.2.1 20240309' : /alpine/.test(tag ?? '') ? 'GCC 14.2.0' : /bullseye/.test(tag ?? '') ? 'GCC 10.2.1 20210110' : 'GCC 12.2.0';
    // No script: its REPL on a terminal, else it reads its program from stdin and runs it at the end.
    const py = program((args) => {
      if (args[0] === '--version' || args[0] === '-V') return { output: [out(`Python ${version}\n`)], exitCode: 0 };
      if (args[0] === '-c') {
        const text = literal(args[1] ?? '', 'print');
        return { output: text !== undefined ? [out(`${text}\n`)] : [], exitCode: 0 };
      }
      if (args[0] === '-m' && args[1] === 'http.server') {
        const port = args[2] ?? '8000';
        return serving([out(`Serving HTTP on 0.0.0.0 port ${port} (http://0.0.0.0:${port}/) ...\n`)]);
      }
      if (args.length && args[0] !== '-' && !args[0]!.startsWith('-')) return { output: [err(`python3: can't open file '/${args[0]}': [Errno 2] No such file or directory\n`)], exitCode: 2 };
      if (!args.length || args[0] === '-') return { output: [], interpreter: (io) => pythonInterpreter(version, compiler, io) };
      return { output: [], readsStdin: true, exitCode: 0 };
    });
    return image({
      cmd: ['python3'],
      env: [['PATH', dockerPath], ['LANG', 'C.UTF-8'], ['GPG_KEY', '7169605F62C751356D054A26A821E680E5FA6305'], ['PYTHON_VERSION', version], ['PYTHON_SHA256', '9cf9427bee9e2242e3877dd0f6b641c1853ca461f39d6503ce260a59c80bf0d9']],
      tools: /alpine/.test(tag ?? '') ? alpineTools : debianTools,
      programs: programs([['/usr/local/bin/python3', py], ['/usr/local/bin/python', py]]),
    });
  },
};

const node: Repository = {
  names: ['docker.io/library/node'],
  publishes: tagGrammar(['latest', 'lts', 'current', 'slim', 'alpine', 'bookworm', 'bullseye'], within([4, 25], () => 30, () => 30), ['slim', 'alpine', 'bookworm', 'bullseye', 'bookworm-slim', 'bullseye-slim', 'alpine3.21', 'alpine3.20']),
  image: (tag) => {
    const version = versionOf(tag, '23.3.0', (v) => ({ '23': '23.3.0', '22': '22.12.0', '20': '20.18.1', '18': '18.20.5' } as Record<string, string>)[v]);
    const entrypoint = program((args) => {
      // A first argument that is an option or not a command is node's.
      const argv = args.length && args[0]!.startsWith('-') ? ['node', ...args] : args;
      return { output: [], exec: execArgs(argv, '/usr/local/bin/docker-entrypoint.sh', 11, 'dash') };
    });
    const nodeProgram = program((args) => {
      if (args[0] === '--version' || args[0] === '-v') return { output: [out(`v${version}\n`)], exitCode: 0 };
      if (args[0] === '-e' || args[0] === '--eval' || args[0] === '-p') {
        const text = literal(args[1] ?? '', 'console.log');
        return { output: text !== undefined ? [out(`${text}\n`)] : [], exitCode: 0 };
      }
      if (args.length && !args[0]!.startsWith('-')) return { output: [err(`node:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module '/${args[0]}'\n`)], exitCode: 1 };
      if (!args.length || args[0] === '-') return { output: [], interpreter: (io) => nodeInterpreter(version, io) };
      return { output: [], readsStdin: true, exitCode: 0 };
    });
    return image({
      entrypoint: ['docker-entrypoint.sh'],
      cmd: ['node'],
      env: [['PATH', dockerPath], ['NODE_VERSION', version], ['YARN_VERSION', '1.22.22']],
      tools: /alpine/.test(tag ?? '') ? alpineTools : debianTools,
      programs: programs([['/usr/local/bin/docker-entrypoint.sh', entrypoint], ['/usr/local/bin/node', nodeProgram]]),
    });
  },
};

// ---- Kubernetes and tools ----

const pause: Repository = {
  names: ['registry.k8s.io/pause', 'k8s.gcr.io/pause'],
  publishes: (tag) => /^(3\.([0-9]|10)|2\.0|1\.0|0\.8\.0)$/.test(tag) || tag === 'latest',
  // Built to run as 65535:65535 from 3.5 on; earlier releases (the docs' pause:3.1) run as root.
  image: (tag) => {
    const [major, minor] = (tag ?? 'latest').split('.').map(Number) as [number, number | undefined];
    const nonRoot = tag === undefined || tag === 'latest' || major > 3 || (major === 3 && (minor ?? 0) >= 5);
    return image({ entrypoint: ['/pause'], cmd: [], env: [['PATH', dockerPath]], tools: [], ...(nonRoot ? { user: 65535 } : {}), programs: programs([['/pause', program(() => serving([]))]]) });
  },
};

const curl: Repository = {
  names: ['docker.io/curlimages/curl'],
  publishes: (tag) => tag === 'latest' || /^(7\.(8[4-9])|8\.([0-9]|1[0-1]))\.\d$/.test(tag),
  image: (tag) => {
    const version = versionOf(tag, '8.11.1');
    const entrypoint = program((args) => {
      const argv = !args.length || args[0]!.startsWith('-') ? ['curl', ...args] : args;
      return { output: [], exec: execArgs(argv, '/entrypoint.sh', 7, 'dash') };
    });
    return image({
      entrypoint: ['/entrypoint.sh'],
      cmd: ['curl'],
      workingDir: '/home/curl_user',
      env: [['PATH', dockerPath], ['CURL_CA_BUNDLE', '/cacert.pem'], ['CURL_VERSION', version]],
      user: 100,
      tools: [...alpineTools, 'curl'],
      programs: programs([['/entrypoint.sh', entrypoint]]),
    });
  },
};

/**
 * The HorizontalPodAutoscaler walkthrough's php-apache: Apache 2.4 with PHP 5
 * on Debian, whose index.php runs a million square roots and says `OK!`;
 * each request costs its container cpu (serverLoad.ts), so a load generator's
 * wget loop shows in `kubectl top` and scales the Deployment.
 */
const hpaExample: Repository = {
  names: ['registry.k8s.io/hpa-example', 'k8s.gcr.io/hpa-example'],
  publishes: (tag) => tag === 'latest',
  image: () => {
    const foreground = program((args, _env, ctx) => {
      const t = apacheStamp(ctx.now);
      const fqdn = `AH00558: apache2: Could not reliably determine the server's fully qualified domain name, using ${ctx.podIP ?? ctx.hostname}. Set the 'ServerName' directive globally to suppress this message\n`;
      const ok = 'HTTP/1.1 200 OK\r\nServer: Apache/2.4.10 (Debian)\r\nX-Powered-By: PHP/5.6.40\r\nContent-Length: 3\r\nContent-Type: text/html\r\n\r\nOK!';
      const accessLog = (request: string, answer: string, at: number, from: string | undefined) => {
        const line = request.split('\r\n')[0] ?? '';
        const agent = /^user-agent:\s*(.*)$/im.exec(request)?.[1] ?? '-';
        return `${from ?? '-'} - - [${strftime('%d/%b/%Y:%H:%M:%S +0000', at)}] "${line}" ${/^HTTP\/1\.[01] (\d+)/.exec(answer)?.[1] ?? 200} 187 "-" "${agent}"\n`;
      };
      return listening([{ port: 80, respond: () => ok, accessLog, cpuMsPerRequest: 40 }], [
        err(fqdn),
        err(fqdn),
        err(`[${t}] [mpm_prefork:notice] [pid 1] AH00163: Apache/2.4.10 (Debian) PHP/5.6.40 configured -- resuming normal operations\n`),
        err(`[${t}] [core:notice] [pid 1] AH00094: Command line: 'apache2 -D FOREGROUND${args.length ? ` ${args.join(' ')}` : ''}'\n`),
      ]);
    });
    return image({
      cmd: ['apache2-foreground'],
      workingDir: '/var/www/html',
      env: [['PATH', dockerPath], ['PHP_VERSION', '5.6.40'], ['APACHE_CONFDIR', '/etc/apache2']],
      tools: debianTools,
      os: { id: 'debian', version: '8', codename: 'jessie' },
      programs: programs([['/usr/local/bin/apache2-foreground', foreground]]),
      files: new Map([['/var/www/html/index.php', '<?php\n  $x = 0.0001;\n  for ($i = 0; $i <= 1000000; $i++) {\n    $x += sqrt($x);\n  }\n  echo "OK!";\n?>\n']]),
    });
  },
};

/** A plain-text HTTP answer, as Go's net/http writes one (Date, Content-Length, Content-Type). */
function goAnswer(status: string, body: string, at: number, type = 'text/plain; charset=utf-8'): string {
  return `HTTP/1.1 ${status}\r\nDate: ${httpDate(at)}\r\nContent-Length: ${encodeText(body).byteLength}\r\nContent-Type: ${type}\r\n\r\n${body}`;
}
const requestPath = (request: string) => (request.split(' ')[1] ?? '/').split('?')[0]!;

/**
 * Google's hello-app (the GKE quickstart's and the docs' Ingress on Minikube
 * tutorial's): a Go server on $PORT (8080) that answers every path with its
 * greeting, version and hostname, logging each request; distroless, so no
 * shell, as user nonroot.
 */
const helloApp: Repository = {
  names: ['gcr.io/google-samples/hello-app', 'us-docker.pkg.dev/google-samples/containers/gke/hello-app'],
  publishes: (tag) => tag === '1.0' || tag === '2.0',
  image: (tag) => {
    const version = tag === '2.0' ? '2.0.0' : '1.0.0';
    const server = program((_args, env, ctx) => {
      const port = Number(env.get('PORT') || 8080);
      const stamp = (at: number) => strftime('%Y/%m/%d %H:%M:%S', at);
      const respond = (_request: string, at: number) => goAnswer('200 OK', `Hello, world!\nVersion: ${version}\nHostname: ${ctx.hostname}\n`, at);
      // Go's log package writes to stderr; the log merges the streams.
      const accessLog = (request: string, _answer: string, at: number) => `${stamp(at)} Serving request: ${requestPath(request)}\n`;
      return listening([{ port, addresses: ['::'], respond, accessLog }], [err(`${stamp(ctx.now)} Server listening on port ${port}\n`)]);
    });
    return image({ cmd: ['/hello-app'], env: [['PATH', dockerPath], ['PORT', '8080']], tools: [], user: 65532, programs: programs([['/hello-app', server]]) });
  },
};

/**
 * CoreDNS as kubeadm runs it (the coredns Deployment in kube-system): it reads
 * its Corefile (-conf, default ./Corefile) and logs the server block, the
 * configuration's SHA-512 and its version; its health (8080 /health), ready
 * (8181 /ready) and prometheus (9153 /metrics) plugins answer over HTTP. The
 * cluster's DNS answers themselves are clusterDns.ts's; the questions a pod
 * asks reach its port 53 (reportDnsQuery), and with the `log` plugin in its
 * Corefile it writes each down. Its reload plugin reads the Corefile again
 * every 30 seconds and logs a reload when it changed (a ConfigMap edit, once
 * the kubelet has refreshed the volume). Distroless: no shell.
 */
const coredns: Repository = {
  names: ['registry.k8s.io/coredns/coredns', 'docker.io/coredns/coredns', 'k8s.gcr.io/coredns/coredns'],
  publishes: (tag) => tag === 'latest' || /^v?1\.([0-9]|1[0-2])\.\d{1,2}$/.test(tag),
  image: (tag) => {
    const version = /^v?(\d+\.\d+\.\d+)$/.exec(tag ?? '')?.[1] ?? '1.12.1';
    const server = program((args, _env, ctx) => {
      const at = args.indexOf('-conf');
      const path = at >= 0 && args[at + 1] ? (args[at + 1]!.startsWith('/') ? args[at + 1]! : `/${args[at + 1]}`) : '/Corefile';
      const corefileAt = (when: number): string | undefined => {
        const files = ctx.files?.(when);
        const real = files && resolveLinks((p) => files.get(p), path, true);
        return files && real ? readFile(files, real) : undefined;
      };
      const text = corefileAt(ctx.now);
      if (text === undefined) return { output: [err(`maxprocs: Leaving GOMAXPROCS=4: CPU quota undefined\n`), out(`[FATAL] open ${path}: no such file or directory\n`)], exitCode: 1 };
      const sha = (t: string) => bytesToHex(sha512(encodeText(t)));
      const blocks = [...text.matchAll(/^([^\s{#][^{]*?)\s*\{/gm)].map((m) => m[1]!.trim());
      // The reload plugin's check: the Corefile as it was at its last look, every 30 s from the start.
      const reloadMs = 30_000;
      let looked: { at: number; text: string } | undefined;
      const inEffect = (when: number) => {
        const at = ctx.now + Math.floor((when - ctx.now) / reloadMs) * reloadMs;
        if (looked?.at !== at) looked = { at, text: corefileAt(at) ?? text };
        return looked.text;
      };
      const routes: Record<string, string> = { '/health': 'OK', '/ready': 'OK', '/metrics': `# HELP coredns_build_info A metric with a constant '1' value labeled by version, revision, and goversion from which CoreDNS was built.\n# TYPE coredns_build_info gauge\ncoredns_build_info{goversion="go1.24.1",revision="707c7c1",version="${version}"} 1\n` };
      const respond = (port: number) => (request: string, now: number) => {
        const p = requestPath(request);
        const known = (port === 8080 && p === '/health') || (port === 8181 && p === '/ready') || (port === 9153 && p === '/metrics');
        return known ? goAnswer('200 OK', routes[p]!, now) : goAnswer('404 Not Found', '404 page not found\n', now);
      };
      const dns = { port: 53, respond: () => '', accessLog: (request: string, _answer: string, when: number) => (/^\s*log(\s|$)/m.test(inEffect(when)) ? corednsLogLine(request, when) : undefined) };
      const run = listening([dns, ...[8080, 8181, 9153].map((port) => ({ port, addresses: ['::'], respond: respond(port) }))], [
        err('maxprocs: Leaving GOMAXPROCS=4: CPU quota undefined\n'),
        out(blocks.map((b) => `${b}\n`).join('')),
        out(`[INFO] plugin/reload: Running configuration SHA512 = ${sha(text)}\n`),
        out(`CoreDNS-${version}\nlinux/amd64, go1.24.1, 707c7c1\n`),
      ]);
      const tick = (when: number) => {
        const was = corefileAt(when - reloadMs) ?? text;
        const now = corefileAt(when);
        if (now === undefined || now === was || !/^\s*reload(\s|$)/m.test(was)) return [];
        return [out(`[INFO] Reloading\n[INFO] plugin/health: Going into lameduck mode for 5s\n[INFO] plugin/reload: Running configuration SHA512 = ${sha(now)}\n[INFO] Reloading complete\n`)];
      };
      return { ...run, every: { ms: reloadMs, tick } };
    });
    return image({ entrypoint: ['/coredns'], cmd: [], env: [['PATH', dockerPath]], tools: [], user: 65532, programs: programs([['/coredns', server]]) });
  },
};

/**
 * A question as CoreDNS's log plugin writes it (its common format): the client's address and port,
 * the query id, the question with the request's protocol, size, DO bit and buffer, then the rcode,
 * the reply's flags and size and the time taken.
 */
function corednsLogLine(request: string, at: number): string | undefined {
  let e: DnsExchange;
  try {
    e = JSON.parse(request) as DnsExchange;
  } catch {
    return undefined;
  }
  const h = exchangeHash(e, at);
  const opt = e.edns ? 23 : 0;
  const size = 12 + wireLength(e.qname) + 4 + opt;
  // No answer: the zone's SOA in the authority section.
  const reply = size + (e.answerBytes || 93);
  const local = /(^|\.)(cluster\.local|in-addr\.arpa)$/.test(e.qname);
  return `[INFO] ${e.from}:${32768 + (h % 28232)} - ${h % 65536} "${e.qtype} IN ${e.qname}. udp ${size} false ${e.edns ? 1232 : 512}" ${e.rcode} ${local ? 'qr,aa,rd' : 'qr,rd,ra'} ${reply} 0.000${String(100_000 + (h % 900_000)).slice(0, 6)}s\n`;
}

/**
 * kube-proxy as kubeadm's DaemonSet runs it on every node, on the host network:
 * it logs its start in iptables mode (klog) and serves /healthz on 10256 and
 * /metrics on 127.0.0.1:10249; its iptables rules print with iptables-save
 * and iptables -S (iptablesTools.ts). The routing itself is kubeProxy.ts's.
 */
const kubeProxy: Repository = {
  names: ['registry.k8s.io/kube-proxy', 'k8s.gcr.io/kube-proxy'],
  publishes: (tag) => /^v1\.(\d{1,2})\.\d{1,2}$/.test(tag),
  image: (tag) => {
    const version = tag ?? 'v1.36.0';
    const proxy = program((_args, _env, ctx) => {
      const log = (source: string, text: string, severity: 'I' | 'E' = 'I') => err(klogLine(ctx.now, source, text, severity));
      const healthz = (_request: string, now: number) => {
        const t = new Date(now).toISOString();
        return goAnswer('200 OK', `{"lastUpdated": "${t}","currentTime": "${t}", "nodeEligible": true}`, now, 'application/json');
      };
      const metrics = (_request: string, now: number) => goAnswer('200 OK', `# HELP kubeproxy_sync_proxy_rules_duration_seconds [ALPHA] SyncProxyRules latency in seconds\n# TYPE kubeproxy_sync_proxy_rules_duration_seconds histogram\n`, now, 'text/plain; version=0.0.4; charset=utf-8');
      return listening([{ port: 10256, addresses: ['::'], respond: healthz }, { port: 10249, addresses: ['127.0.0.1'], respond: metrics }], [
        log('server_linux.go:66', '"Using iptables proxy"'),
        log('server.go:698', `"Successfully retrieved node IP(s)" IPs=["${ctx.podIP ?? ''}"]`),
        log('conntrack.go:121', '"Set sysctl" entry="net/netfilter/nf_conntrack_tcp_timeout_established" value=86400'),
        log('conntrack.go:121', '"Set sysctl" entry="net/netfilter/nf_conntrack_tcp_timeout_close_wait" value=3600'),
        log('server.go:234', '"Kube-proxy configuration may be incomplete or incorrect" err="nodePortAddresses is unset; NodePort connections will be accepted on all local IPs. Consider using `--nodeport-addresses primary`"', 'E'),
        log('server.go:243', '"kube-proxy running in dual-stack mode" primary ipFamily="IPv4"'),
        log('server_linux.go:170', '"Using iptables Proxier"'),
        log('proxier.go:255', '"Setting route_localnet=1 to allow node-ports on localhost; to change this either disable iptables.localhostNodePorts (--iptables-localhost-nodeports) or set nodePortAddresses (--nodeport-addresses) to filter loopback addresses" ipFamily="IPv4"'),
        log('server.go:497', `"Version info" version="${version}"`),
        log('server.go:499', '"Golang settings" GOGC="" GOMAXPROCS="" GOTRACEBACK=""'),
        log('config.go:199', '"Starting service config controller"'),
        log('shared_informer.go:313', 'Waiting for caches to sync for service config'),
        log('config.go:105', '"Starting endpoint slice config controller"'),
        log('shared_informer.go:313', 'Waiting for caches to sync for endpoint slice config'),
        log('config.go:329', '"Starting node config controller"'),
        log('shared_informer.go:313', 'Waiting for caches to sync for node config'),
        log('shared_informer.go:320', 'Caches are synced for node config'),
        log('shared_informer.go:320', 'Caches are synced for service config'),
        log('shared_informer.go:320', 'Caches are synced for endpoint slice config'),
      ]);
    });
    // distroless-iptables: iptables and iptables-save, no shell.
    return image({ entrypoint: [], cmd: ['/usr/local/bin/kube-proxy'], env: [['PATH', dockerPath]], tools: ['iptables', 'iptables-save'], programs: programs([['/usr/local/bin/kube-proxy', proxy]]) });
  },
};

/**
 * The DNS debugging page's dnsutils pod: Kubernetes' e2e test image, Debian 8
 * (jessie) with BIND 9.9's dnsutils (nslookup, dig).
 */
const jessieDnsutils: Repository = {
  names: ['registry.k8s.io/e2e-test-images/jessie-dnsutils', 'k8s.gcr.io/e2e-test-images/jessie-dnsutils', 'gcr.io/kubernetes-e2e-test-images/dnsutils'],
  publishes: (tag) => /^1\.[0-7]$/.test(tag),
  image: () => image({ cmd: ['bash'], tools: [...debianTools, 'dig', 'nslookup'], os: { id: 'debian', version: '8', codename: 'jessie' }, bind: '9.9.5-9+deb8u19-Debian' }),
};

/** The load generator of the docs' memory task: stress 1.0.4 on Alpine. */
const polinuxStress: Repository = {
  names: ['docker.io/polinux/stress'],
  publishes: (tag) => tag === 'latest' || tag === '1.0.4',
  image: () => image({ entrypoint: ['/usr/local/bin/stress'], cmd: [], tools: alpineTools, programs: programs([['/usr/local/bin/stress', stress]]) }),
};

/** The load generator of the docs' cpu task: a Go binary in an image of its own (no shell). */
const vishStressRepo: Repository = {
  names: ['docker.io/vish/stress'],
  publishes: (tag) => tag === 'latest',
  image: () => image({ entrypoint: ['/stress', '-logtostderr'], cmd: [], tools: [], programs: programs([['/stress', vishStress]]) }),
};

const repositories: readonly Repository[] = [busybox, alpine, ubuntu, debian, nginxRepo, httpd, redis, postgres, mysql, python, node, pause, curl, polinuxStress, vishStressRepo, hpaExample, helloApp, coredns, kubeProxy, jessieDnsutils];
const byName = new Map(repositories.flatMap((r) => r.names.map((n) => [n, r] as const)));

/** Whether the catalog knows the repository and it publishes nothing by that tag (a digest is taken as published). */
export function unpublishedTag(ref: ImageReference): boolean {
  const repo = byName.get(`${ref.domain}/${ref.path}`);
  return !!repo && !ref.digest && !repo.publishes(ref.tag ?? 'latest');
}

const cache = new Map<string, SimulatedImage | undefined>();

/** The catalog's image for a reference; undefined for one it does not know or a tag its repository does not publish. */
export function catalogImage(image: string): SimulatedImage | undefined {
  if (cache.has(image)) return cache.get(image);
  if (cache.size > 1000) cache.clear();
  const parsed = parseImageReference(image);
  let found: SimulatedImage | undefined;
  if ('ref' in parsed) {
    const repo = byName.get(`${parsed.ref.domain}/${parsed.ref.path}`);
    if (repo && !unpublishedTag(parsed.ref)) found = repo.image(parsed.ref.tag);
  }
  cache.set(image, found);
  return found;
}
