/**
 * The images' package managers, for what a debugging session installs:
 * `apt-get`/`apt` (Debian, Ubuntu) and `apk` (Alpine). Installing one of the
 * packages whose commands kubesim simulates (curl, wget, procps, ping,
 * nslookup, nc, ip, ifconfig and netstat) puts them into the container's
 * writable layer, with the manager's own output: so they are gone when the
 * container restarts, as on a node. apt needs `apt-get update` first (the
 * images ship without package lists: `E: Unable to locate package curl`);
 * both need root and the mirror: a user other than root cannot lock the
 * database, and a pod whose egress policies drop its DNS cannot resolve the
 * mirror. A package kubesim does not simulate is refused with a notice
 * naming those it does.
 */
import { dnsReachable } from './networkTools';
import { parentOf, readFile, resolvePath, writeFile, type Run, type ToolContext } from './containerTools';
import type { FsEntry } from './containerView';

/** The distribution an image is built on, as its /etc/os-release names it. */
export interface ImageOs {
  id: 'debian' | 'ubuntu' | 'alpine';
  /** VERSION_ID: `12`, `24.04`, `3.21`. */
  version: string;
  /** VERSION_CODENAME: `bookworm`, `noble` (none for Alpine). */
  codename?: string;
}

/** The releases the catalog's images are built on unless their tag says otherwise. */
export const debianOs: ImageOs = { id: 'debian', version: '12', codename: 'bookworm' };
export const alpineOs: ImageOs = { id: 'alpine', version: '3.21.3' };
export const ubuntuOs: ImageOs = { id: 'ubuntu', version: '24.04', codename: 'noble' };

/** /etc/os-release of the distribution. */
export function osRelease(os: ImageOs): string {
  if (os.id === 'alpine') return `NAME="Alpine Linux"\nID=alpine\nVERSION_ID=${os.version}\nPRETTY_NAME="Alpine Linux v${os.version.split('.').slice(0, 2).join('.')}"\nHOME_URL="https://alpinelinux.org/"\nBUG_REPORT_URL="https://gitlab.alpinelinux.org/alpine/aports/-/issues"\n`;
  if (os.id === 'ubuntu') return `PRETTY_NAME="Ubuntu ${os.version} LTS"\nNAME="Ubuntu"\nVERSION_ID="${os.version}"\nVERSION="${os.version} LTS (${os.codename})"\nVERSION_CODENAME=${os.codename}\nID=ubuntu\nID_LIKE=debian\nHOME_URL="https://www.ubuntu.com/"\nSUPPORT_URL="https://help.ubuntu.com/"\nBUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"\nPRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"\nUBUNTU_CODENAME=${os.codename}\n`;
  return `PRETTY_NAME="Debian GNU/Linux ${os.version} (${os.codename})"\nNAME="Debian GNU/Linux"\nVERSION_ID="${os.version}"\nVERSION="${os.version} (${os.codename})"\nVERSION_CODENAME=${os.codename}\nID=debian\nHOME_URL="https://www.debian.org/"\nSUPPORT_URL="https://www.debian.org/support"\nBUG_REPORT_URL="https://bugs.debian.org/"\n`;
}

interface Package {
  version: string;
  /** The commands it installs, at their paths. */
  commands: readonly string[];
  /** Download and installed sizes in kB, as apt reports them (apk prints none). */
  size?: [number, number];
}

/** What kubesim can install on Debian and Ubuntu (bookworm's versions). */
const debianPackages: Record<string, Package> = {
  curl: { version: '7.88.1-10+deb12u12', commands: ['/usr/bin/curl'], size: [315, 500] },
  wget: { version: '1.21.3-1+b2', commands: ['/usr/bin/wget'], size: [984, 3573] },
  procps: { version: '2:4.0.2-3', commands: ['/usr/bin/ps', '/usr/bin/kill', '/usr/bin/free'], size: [709, 2389] },
  'iputils-ping': { version: '3:20221126-1+deb12u1', commands: ['/usr/bin/ping'], size: [47, 121] },
  'bind9-dnsutils': { version: '1:9.18.33-1~deb12u2', commands: ['/usr/bin/dig', '/usr/bin/nslookup'], size: [403, 1132] },
  dnsutils: { version: '1:9.18.33-1~deb12u2', commands: ['/usr/bin/dig', '/usr/bin/nslookup'], size: [403, 1132] },
  'netcat-openbsd': { version: '1.219-1', commands: ['/usr/bin/nc'], size: [41, 109] },
  'netcat-traditional': { version: '1.10-47', commands: ['/usr/bin/nc'], size: [66, 129] },
  iproute2: { version: '6.1.0-3', commands: ['/usr/sbin/ip', '/usr/bin/ip'], size: [1045, 3470] },
  'net-tools': { version: '2.10-0.1', commands: ['/usr/sbin/ifconfig', '/usr/bin/netstat'], size: [243, 1003] },
};

/** What kubesim can install on Alpine. */
const alpinePackages: Record<string, Package> = {
  curl: { version: '8.12.1-r1', commands: ['/usr/bin/curl'] },
  'bind-tools': { version: '9.18.37-r0', commands: ['/usr/bin/dig', '/usr/bin/nslookup'] },
  procps: { version: '4.0.4-r2', commands: ['/bin/ps'] },
  iputils: { version: '20240905-r0', commands: ['/bin/ping'] },
  'netcat-openbsd': { version: '1.229.1-r0', commands: ['/usr/bin/nc'] },
  iproute2: { version: '6.11.0-r0', commands: ['/sbin/ip'] },
  'net-tools': { version: '2.10-r3', commands: ['/sbin/ifconfig', '/bin/netstat'] },
  wget: { version: '1.25.0-r0', commands: ['/usr/bin/wget'] },
};

const debianMirror = 'http://deb.debian.org/debian';
const listsMarker = '/var/lib/apt/lists/lock';

/** The mirror's suites for the image's release, as `apt-get update` fetches them. */
function aptSources(os: ImageOs): { url: string; suite: string; size: string; packages: string }[] {
  if (os.id === 'ubuntu') {
    const c = os.codename ?? 'noble';
    return [
      { url: 'http://archive.ubuntu.com/ubuntu', suite: c, size: '256 kB', packages: '19.3 MB' },
      { url: 'http://archive.ubuntu.com/ubuntu', suite: `${c}-updates`, size: '126 kB', packages: '1507 kB' },
      { url: 'http://archive.ubuntu.com/ubuntu', suite: `${c}-backports`, size: '126 kB', packages: '30.2 kB' },
      { url: 'http://security.ubuntu.com/ubuntu', suite: `${c}-security`, size: '126 kB', packages: '1168 kB' },
    ];
  }
  const c = os.codename ?? 'bookworm';
  return [
    { url: debianMirror, suite: c, size: '151 kB', packages: '8792 kB' },
    { url: debianMirror, suite: `${c}-updates`, size: '55.4 kB', packages: '512 B' },
    { url: 'http://deb.debian.org/debian-security', suite: `${c}-security`, size: '48.0 kB', packages: '258 kB' },
  ];
}

const installable = (packages: Record<string, Package>) => Object.keys(packages).sort().join(', ');

const apkWorldPath = '/etc/apk/world';
/** An Alpine image's world before anything is added. */
const alpineBaseWorld = ['alpine-baselayout', 'alpine-keys', 'apk-tools', 'busybox', 'libc-utils'];
/** busybox applets that Alpine packages replace at the same path (procps' ps, iputils' ping...). */
const busyboxApplets = new Set(['ps', 'ping', 'ifconfig', 'netstat', 'ip', 'wget', 'nc', 'nslookup']);

/**
 * The packages apk installed (/etc/apk/world). Until one is added: the base
 * image's, and those the image itself installed, whose commands it has and
 * busybox does not provide (curlimages/curl's curl).
 */
function apkWorld(files: ReadonlyMap<string, FsEntry>): string[] {
  const world = readFile(files, apkWorldPath);
  if (world !== undefined) return world.split('\n').filter(Boolean);
  // The image's own programs are in /bin (image.ts), a package's where it puts them.
  const has = (c: string) => {
    const name = c.slice(c.lastIndexOf('/') + 1);
    return !busyboxApplets.has(name) && (files.has(c) || files.has(`/bin/${name}`));
  };
  const own = Object.entries(alpinePackages).filter(([, p]) => p.commands.every(has));
  return [...alpineBaseWorld, ...own.map(([n]) => n)].sort();
}

/** Whether apk installed a package into the container. */
export const apkInstalled = (files: ReadonlyMap<string, FsEntry>, name: string): boolean => apkWorld(files).includes(name);

/** Writes a file of the package manager's, its directories made as the package that owns them would. */
function put(ctx: ToolContext, path: string, mode: number, text = ''): void {
  const at = resolvePath('/', path);
  for (let d = parentOf(at), made: string[] = []; ; d = parentOf(d)) {
    if (ctx.files.has(d) || d === '/') {
      for (const m of made.reverse()) ctx.files.set(m, { type: 'dir', mode: 0o755 });
      break;
    }
    made.push(d);
  }
  if (writeFile(ctx.files, at, text, false) === undefined) {
    const e = ctx.files.get(at);
    if (e?.type === 'file') ctx.files.set(at, { ...e, mode });
  }
}

/** Puts a package's commands in the container's layer: empty executables that run the simulated tool of their name. */
function install(ctx: ToolContext, pkg: Package): void {
  for (const path of pkg.commands) put(ctx, path, 0o755);
}

/** Whether the mirror can be reached: the pod's DNS (egress policies may drop it). */
const mirrorReachable = (ctx: ToolContext): boolean => !ctx.network || dnsReachable(ctx.network);

/** apt-get and apt: update, install [-y] PACKAGE... (and -q, --no-install-recommends). */
export function* aptGet(args: string[], ctx: ToolContext, os: ImageOs): Run<number> {
  const words = args.filter((a) => !a.startsWith('-'));
  const command = words[0];
  if (!command) {
    ctx.out('apt 2.6.1 (amd64)\nUsage: apt-get [options] command\n       apt-get [options] install|remove pkg1 [pkg2 ...]\n');
    return 1;
  }
  if (command !== 'update' && command !== 'install') {
    ctx.err(`E: Invalid operation ${command}\n`);
    return 100;
  }
  if (ctx.view.uid !== 0) {
    const lock = command === 'update' ? '/var/lib/apt/lists/lock' : '/var/lib/dpkg/lock-frontend';
    ctx.err(`E: Could not open lock file ${lock} - open (13: Permission denied)\nE: Unable to acquire the dpkg frontend lock (${lock}), are you root?\n`);
    return 100;
  }
  yield { kind: 'observe' };
  const sources = aptSources(os);
  if (command === 'update') {
    if (!mirrorReachable(ctx)) {
      yield { kind: 'sleep', ms: 10_000 };
      sources.forEach((s, i) => ctx.out(`Err:${i + 1} ${s.url} ${s.suite} InRelease\n  Temporary failure resolving '${new URL(s.url).host}'\n`));
      ctx.out('Reading package lists...\n');
      for (const s of sources) ctx.err(`W: Failed to fetch ${s.url}/dists/${s.suite}/InRelease  Temporary failure resolving '${new URL(s.url).host}'\n`);
      ctx.err('W: Some index files failed to download. They have been ignored, or old ones used instead.\n');
      return 0;
    }
    const again = ctx.files.has(listsMarker);
    let n = 0;
    for (const s of sources) ctx.out(again ? `Hit:${++n} ${s.url} ${s.suite} InRelease\n` : `Get:${++n} ${s.url} ${s.suite} InRelease [${s.size}]\n`);
    if (!again) for (const s of sources) ctx.out(`Get:${++n} ${s.url} ${s.suite}/main amd64 Packages [${s.packages}]\n`);
    yield { kind: 'sleep', ms: again ? 300 : 1500 };
    if (!again) ctx.out('Fetched 9305 kB in 1s (6890 kB/s)\n');
    ctx.out('Reading package lists...\n');
    put(ctx, listsMarker, 0o640);
    return 0;
  }
  ctx.out('Reading package lists...\nBuilding dependency tree...\nReading state information...\n');
  const names = words.slice(1);
  const updated = ctx.files.has(listsMarker);
  const missing = names.filter((n) => !updated || !debianPackages[n]);
  if (missing.length) {
    if (updated) ctx.out(`N: kubesim simulates these packages: ${installable(debianPackages)}\n`);
    for (const n of missing) ctx.err(`E: Unable to locate package ${n}\n`);
    return 100;
  }
  const wanted = names.filter((n) => !debianPackages[n]!.commands.every((c) => ctx.files.has(c)));
  for (const n of names.filter((n) => !wanted.includes(n))) ctx.out(`${n} is already the newest version (${debianPackages[n]!.version}).\n`);
  if (!wanted.length) {
    ctx.out('0 upgraded, 0 newly installed, 0 to remove and 0 not upgraded.\n');
    return 0;
  }
  if (!mirrorReachable(ctx)) {
    yield { kind: 'sleep', ms: 10_000 };
    for (const n of wanted) ctx.err(`E: Failed to fetch ${debianMirror}/pool/main/${n[0]}/${n}/${n}_${debianPackages[n]!.version.replace(/^\d+:/, '')}_amd64.deb  Temporary failure resolving 'deb.debian.org'\n`);
    ctx.err('E: Unable to fetch some archives, maybe run apt-get update or try with --fix-missing?\n');
    return 100;
  }
  const pkgs = wanted.map((n) => [n, debianPackages[n]!] as const);
  const download = pkgs.reduce((a, [, p]) => a + (p.size?.[0] ?? 0), 0);
  const installed = pkgs.reduce((a, [, p]) => a + (p.size?.[1] ?? 0), 0);
  ctx.out(`The following NEW packages will be installed:\n  ${wanted.join(' ')}\n0 upgraded, ${wanted.length} newly installed, 0 to remove and 0 not upgraded.\nNeed to get ${download} kB of archives.\nAfter this operation, ${installed} kB of additional disk space will be used.\n`);
  pkgs.forEach(([n, p], i) => ctx.out(`Get:${i + 1} ${debianMirror} ${os.codename ?? 'bookworm'}/main amd64 ${n} amd64 ${p.version} [${p.size?.[0] ?? 0} kB]\n`));
  yield { kind: 'sleep', ms: 500 };
  ctx.out(`Fetched ${download} kB in 0s (${download * 4} kB/s)\n`);
  pkgs.forEach(([n, p], i) => {
    // dpkg reads its database once; several archives are numbered in the order they unpack.
    const file = `${pkgs.length > 1 ? `${i}-` : ''}${n}_${p.version.replace(/^\d+:/, '')}_amd64.deb`;
    ctx.out(`Selecting previously unselected package ${n}.\n${i === 0 ? '(Reading database ... 7582 files and directories currently installed.)\n' : ''}Preparing to unpack .../${file} ...\nUnpacking ${n} (${p.version}) ...\n`);
  });
  for (const [n, p] of pkgs) {
    install(ctx, p);
    ctx.out(`Setting up ${n} (${p.version}) ...\n`);
  }
  return 0;
}

/** apk: add PACKAGE... and update, from the release's main and community repositories. */
export function* apk(args: string[], ctx: ToolContext, os: ImageOs): Run<number> {
  const words = args.filter((a) => !a.startsWith('-'));
  const command = words[0];
  if (command !== 'add' && command !== 'update') {
    ctx.out('apk-tools 2.14.6, compiled for x86_64.\n\nusage: apk [<OPTIONS>...] COMMAND [<ARGUMENTS>...]\n');
    return command === undefined ? 0 : 1;
  }
  const branch = `v${os.version.split('.').slice(0, 2).join('.')}`;
  const indexes = ['main', 'community'].map((r) => `https://dl-cdn.alpinelinux.org/alpine/${branch}/${r}/x86_64/APKINDEX.tar.gz`);
  if (ctx.view.uid !== 0) {
    ctx.err('ERROR: Unable to lock database: Permission denied\nERROR: Failed to open apk database: Permission denied\n');
    return 99;
  }
  yield { kind: 'observe' };
  for (const i of indexes) ctx.out(`fetch ${i}\n`);
  yield { kind: 'sleep', ms: 800 };
  if (!mirrorReachable(ctx)) {
    for (const r of ['main', 'community']) ctx.err(`WARNING: fetching https://dl-cdn.alpinelinux.org/alpine/${branch}/${r}: temporary error (try again later)\n`);
  }
  if (command === 'update') {
    if (!mirrorReachable(ctx)) {
      ctx.out('2 unavailable, 0 stale; 15 distinct packages available\n');
      return 2;
    }
    ctx.out(`${branch}.3-117-g6f12d4ca5b6 [https://dl-cdn.alpinelinux.org/alpine/${branch}/main]\n${branch}.3-118-g4ba9d4be1d0 [https://dl-cdn.alpinelinux.org/alpine/${branch}/community]\nOK: 25256 distinct packages available\n`);
    return 0;
  }
  const names = words.slice(1);
  const unknown = names.filter((n) => !mirrorReachable(ctx) || !alpinePackages[n]);
  if (unknown.length) {
    if (mirrorReachable(ctx)) ctx.err(`kubesim simulates these packages: ${installable(alpinePackages)}\n`);
    ctx.err(`ERROR: unable to select packages:\n${unknown.map((n) => `  ${n} (no such package):\n    required by: world[${n}]\n`).join('')}`);
    return unknown.length;
  }
  // What is installed is apk's world: procps replaces busybox's ps at the same path.
  const world = apkWorld(ctx.files);
  const wanted = [...new Set(names)].filter((n) => !world.includes(n));
  wanted.forEach((n, i) => {
    install(ctx, alpinePackages[n]!);
    ctx.out(`(${i + 1}/${wanted.length}) Installing ${n} (${alpinePackages[n]!.version})\n`);
  });
  if (wanted.length) {
    put(ctx, apkWorldPath, 0o644, [...world, ...wanted].sort().join('\n') + '\n');
    ctx.out('Executing busybox-1.37.0-r12.trigger\n');
  }
  ctx.out(`OK: ${8 + wanted.length} MiB in ${15 + wanted.length} packages\n`);
  return 0;
}
