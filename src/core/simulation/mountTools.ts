/**
 * `mount` and `df` over the container's mount table (/proc/mounts, procFs.ts):
 * busybox's in busybox and Alpine images, util-linux's and coreutils' in
 * Debian and Ubuntu ones. Listing is all a container may do: mounting needs
 * CAP_SYS_ADMIN, which no container but a privileged one has.
 */
import { hasCoreutils, options, type Tool } from './containerTools';
import { nodeMemoryKiB } from './cgroupFiles';
import { nodeCapacityKiB } from './nodes';
import type { MountEntry } from './procFs';

/** mount: with no operands the table (`overlay on / type overlay (rw,...)`); mounting is refused. */
export const mount: Tool = (args, ctx) => {
  const o = options(args, 'tosL');
  const table = ctx.view.mountTable ?? [];
  if (!o.rest.length) {
    const type = o.values.get('t');
    for (const m of table) if (!type || m.type === type) ctx.out(`${m.source} on ${m.target} type ${m.type} (${m.options})\n`);
    return 0;
  }
  const target = o.rest[o.rest.length - 1]!;
  if (!hasCoreutils(ctx)) {
    ctx.err('mount: permission denied (are you root?)\n');
    return 255;
  }
  ctx.err(ctx.view.uid === 0 ? `mount: ${target}: permission denied.\n       dmesg(1) may have more information after failed mount system call.\n` : 'mount: must be superuser to use mount.\n');
  return 32;
};

/** A filesystem's size in KiB: what it holds, what is used, what is left to users. */
interface Usage {
  size: number;
  used: number;
  available: number;
}

/** The node's disk in KiB, and what the node's system and images take of it. */
const diskKiB = nodeCapacityKiB('ephemeral-storage');
const diskUsed = Math.floor(diskKiB * 0.15);
/** ext4 keeps 5% for root. */
const diskReserved = Math.floor(diskKiB * 0.05);

/** A mount's usage; undefined for a filesystem with no blocks (proc, sysfs, cgroup, devpts, mqueue). */
function usageOf(m: MountEntry): Usage | undefined {
  if (m.type === 'overlay' || m.type === 'ext4') return { size: diskKiB, used: diskUsed, available: diskKiB - diskUsed - diskReserved };
  if (m.type !== 'tmpfs') return undefined;
  // A tmpfs is sized by its options, by default half the node's memory; a token volume holds a few files.
  const size = Number(/size=(\d+)k/.exec(m.options)?.[1] ?? nodeMemoryKiB / 2);
  const used = m.target.endsWith('/serviceaccount') ? 12 : 0;
  return { size, used, available: size - used };
}

/** Use%: the used share of what users may have, rounded up (df's). */
const percent = (u: Usage) => (u.used === 0 ? 0 : Math.ceil((u.used * 100) / (u.used + u.available)));

/** Sizes as `-h` prints them (powers of 1024): one decimal below 10 for coreutils, always one for busybox. */
function human(kib: number, busybox: boolean): string {
  if (kib === 0) return '0';
  const units = ['K', 'M', 'G', 'T'];
  let v = kib;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  if (busybox) return `${v.toFixed(1)}${units[u]}`;
  return v < 10 ? `${(Math.ceil(v * 10) / 10).toFixed(1)}${units[u]}` : `${Math.ceil(v)}${units[u]}`;
}

/**
 * df: the mounted filesystems with blocks, in KiB (-k) or readable sizes
 * (-h), optionally those holding the given paths. coreutils lists a device
 * once (the node's disk at the first of the files the kubelet mounts from
 * it) and leaves out the masking tmpfs mounts that share /dev's; busybox
 * lists every mount.
 */
export const df: Tool = (args, ctx) => {
  const o = options(args, 't');
  const h = o.flags.has('h');
  const gnu = hasCoreutils(ctx);
  const table = ctx.view.mountTable ?? [];
  let rows: { m: MountEntry; u: Usage }[] = [];
  for (const m of table) {
    const u = usageOf(m);
    if (u) rows.push({ m, u });
  }
  if (gnu) {
    const seen = new Set<string>();
    rows = rows.filter(({ m }) => {
      if (m.source === 'tmpfs' && /size=65536k,mode=755/.test(m.options) && m.target !== '/dev') return false;
      if (m.source.startsWith('/dev/')) {
        if (seen.has(m.source)) return false;
        seen.add(m.source);
      }
      return true;
    });
  }
  if (o.rest.length) {
    // The filesystem each path is on: the deepest mount over it.
    const picked: { m: MountEntry; u: Usage }[] = [];
    for (const path of o.rest) {
      const abs = path.startsWith('/') ? path : `${ctx.cwd.replace(/\/$/, '')}/${path}`;
      if (!ctx.files.has(abs)) {
        ctx.err(gnu ? `df: ${path}: No such file or directory\n` : `df: ${path}: can't find mount point\n`);
        return 1;
      }
      const over = table.filter((m) => m.target === '/' || abs === m.target || abs.startsWith(m.target + '/')).sort((a, b) => b.target.length - a.target.length)[0];
      const u = over && usageOf(over);
      if (over && u) picked.push({ m: over, u });
    }
    rows = picked;
  }
  const size = (n: number) => (h ? human(n, !gnu) : String(n));
  const cells = rows.map(({ m, u }) => [m.source, size(u.size), size(u.used), size(u.available), `${percent(u)}%`, m.target]);
  if (!gnu) {
    ctx.out(`${'Filesystem'.padEnd(20)} ${(h ? 'Size' : '1K-blocks').padStart(9)} ${'Used'.padStart(9)} ${'Available'.padStart(9)} Use% Mounted on\n`);
    for (const c of cells) ctx.out(`${c[0]!.padEnd(20)} ${c[1]!.padStart(9)} ${c[2]!.padStart(9)} ${c[3]!.padStart(9)} ${c[4]!.padStart(4)} ${c[5]}\n`);
    return 0;
  }
  // coreutils sizes each column to its widest cell.
  const header = ['Filesystem', h ? 'Size' : '1K-blocks', 'Used', h ? 'Avail' : 'Available', 'Use%', 'Mounted on'];
  const all = [header, ...cells];
  // At least coreutils' minimum widths: 14 for the source, 5 for sizes, 4 for Use%.
  const widths = header.map((_, i) => Math.max([14, 5, 5, 5, 4, 0][i]!, ...all.map((r) => r[i]!.length)));
  for (const r of all) ctx.out(r.map((c, i) => (i === 0 ? c.padEnd(widths[0]!) : i === 5 ? c : c.padStart(widths[i]!))).join(' ') + '\n');
  return 0;
};
