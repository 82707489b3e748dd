/**
 * `ps` (busybox's, and procps' once a Debian or Ubuntu image installs it)
 * and busybox `kill` over the processes of a container's run: its own
 * process (pid 1) and those exec'd into it (a `kubectl exec`, an exec
 * probe), which share its files (containerFiles.ts). What matters for
 * learning is the namespace's init: `kill 1` ends a container only when
 * its process handles SIGTERM (nginx shuts down, exit 0, and the kubelet
 * restarts it), while a shell or `sleep` as pid 1 ignores it, and SIGKILL
 * from inside the container never reaches pid 1.
 */
import { ProcessFiles, type ContainerMember } from './containerFiles';
import { nodeMemoryKiB } from './cgroupFiles';
import { hasCoreutils, userName, type Tool, type ToolContext } from './containerTools';
import { apkInstalled } from './packageTools';
import { processName, programMemoryKiB } from './procFs';
import { readerNow } from './fileStore';
import type { ProcessChild } from './processIo';

/** The signals kill knows by name and number (Linux x86-64 numbering), in `kill -l` order. */
const signalNames = ['HUP', 'INT', 'QUIT', 'ILL', 'TRAP', 'ABRT', 'BUS', 'FPE', 'KILL', 'USR1', 'SEGV', 'USR2', 'PIPE', 'ALRM', 'TERM', 'STKFLT', 'CHLD', 'CONT', 'STOP', 'TSTP', 'TTIN', 'TTOU', 'URG', 'XCPU', 'XFSZ', 'VTALRM', 'PROF', 'WINCH', 'POLL', 'PWR', 'SYS'];

/** The container's processes running now, or none for a process outside any container run. */
function runningNow(ctx: ToolContext): ContainerMember[] {
  return ctx.files instanceof ProcessFiles ? ctx.files.fs.running(ctx.now()) : [];
}

/**
 * The USER ps shows for a process: the viewer's own container's run as its user; another container's
 * (a shared PID namespace) by its uid, as this container has no name for it (root aside), so nginx's
 * workers read 101 from a busybox container and `nginx` from their own.
 */
function usersOf(ctx: ToolContext): { member(m: ContainerMember): string; child(m: ContainerMember, c: ProcessChild): string } {
  const own = new Set(ctx.files instanceof ProcessFiles ? ctx.files.fs.ownRunning(ctx.now()) : []);
  const viewer = userName(ctx.view.uid);
  return {
    member: (m) => (own.has(m) ? viewer : userName(m.uid ?? ctx.view.uid)),
    child: (m, c) => (own.has(m) ? c.user : userName(c.uid)),
  };
}

/** The pid of a ps a shell forked: the next free one of the container's (PID namespace's) when it has processes, else after `last`. */
const forkedPid = (ctx: ToolContext, members: readonly ContainerMember[], last: number): number => (members.length && ctx.files instanceof ProcessFiles ? ctx.files.fs.execPid() : last + 1);

/**
 * ps: busybox's in busybox and Alpine images, procps' in Debian and Ubuntu
 * ones (which have no ps until `apt-get install procps`) and in Alpine ones
 * once `apk add procps` replaced busybox's.
 */
export const ps: Tool = (args, ctx) => (hasCoreutils(ctx) || (ctx.view.image.os?.id === 'alpine' && apkInstalled(ctx.files, 'procps')) ? procps(args, ctx) : busyboxPs(args, ctx));

/**
 * busybox ps: PID, USER, TIME, COMMAND of every process running now. BSD
 * style words (`aux`) and the desktop options (-e -f -a -A -l -w) are
 * accepted and change nothing, as in busybox. A ps run by a shell shows
 * itself too, as the shell's child.
 */
const busyboxPs: Tool = (args, ctx) => {
  for (const a of args) {
    if (a.startsWith('-') && !/^-[aAdeflwT]+$/.test(a)) {
      ctx.err(`ps: unrecognized option: ${a.slice(1).replace(/[aAdeflwT]/g, '')[0] ?? a}\n`);
      return 1;
    }
  }
  const members = runningNow(ctx);
  const user = userName(ctx.view.uid);
  const users = usersOf(ctx);
  const rows = members.map((m) => ({ pid: m.pid, user: users.member(m), command: m.command.join(' ') }));
  // Run by a shell (`sh -c ps`), ps is that shell's child, with the next pid.
  if (!rows.some((r) => r.command === ['ps', ...args].join(' '))) rows.push({ pid: forkedPid(ctx, members, Math.max(0, ...rows.map((r) => r.pid))), user, command: ['ps', ...args].join(' ') });
  for (const m of members) for (const c of m.children) rows.push({ pid: c.pid, user: users.child(m, c), command: c.title });
  ctx.out('PID   USER     TIME  COMMAND\n');
  for (const r of rows.sort((a, b) => a.pid - b.pid)) ctx.out(`${String(r.pid).padStart(5)} ${r.user.padEnd(8)} ${'0:00'.padStart(5)} ${r.command}\n`);
  return 0;
};

/** A process as procps ps shows it. */
interface PsRow {
  pid: number;
  ppid: number;
  /** `pts/N`, or `?` for none. */
  tty: string;
  stat: string;
  startMs: number;
  argv: readonly string[];
  /** Its user, when not the container's (a server's workers). */
  user?: string;
  uid?: number;
}


/** procps' error, then its usage. */
const procpsError = (message: string) => `error: ${message}\n\nUsage:\n ps [options]\n\n Try 'ps --help <simple|list|output|threads|misc|all>'\n  or 'ps --help <s|l|o|t|m|a>'\n for additional help text.\n\nFor more details see ps(1).\n`;

/**
 * procps-ng ps with the selections and formats a debugging session uses:
 * no options (the caller's terminal: PID TTY TIME CMD), `-e`/`-A` (every
 * process), `-p` (those pids), `-f` (full: UID PID PPID C STIME TTY TIME
 * CMD), `-o` (chosen columns, `name=Header`), and the BSD words `a`, `u`
 * and `x` (`ps aux`: USER PID %CPU %MEM VSZ RSS TTY STAT START TIME
 * COMMAND). Processes exec'd into the container are children
 * of no process in it (PPID 0) and lead their own sessions; one run by a
 * shell is the shell's child. CPU time is not simulated: TIME is 0.
 */
function procps(args: string[], ctx: ToolContext): number {
  let all = false;
  let full = false;
  let bsd = false;
  let bsdUser = false;
  let bsdAll = false;
  let bsdNoTty = false;
  let columns: string[] | undefined;
  let pids: number[] | undefined;
  for (let i = 0; i < args.length; i++) {
    // `-aux` would be `-a -u x` (the user x), whom no image has: procps then takes it as BSD `aux`, as people mean it.
    const a = /^-[aux]+$/.test(args[i]!) && args[i]!.includes('u') && args[i]!.includes('x') ? args[i]!.slice(1) : args[i]!;
    if (a.startsWith('-')) {
      for (let k = 1; k < a.length; k++) {
        const c = a[k]!;
        if (c === 'e' || c === 'A') all = true;
        else if (c === 'f') full = true;
        else if (c === 'o' || c === 'p') {
          // The list is the rest of the word, or the next argument.
          const list = a.slice(k + 1) || args[++i];
          if (list === undefined) {
            ctx.err(procpsError(c === 'o' ? 'improper format list' : 'list of process IDs must follow -p'));
            return 1;
          }
          if (c === 'o') (columns ??= []).push(...list.split(/[,\s]+/).filter(Boolean));
          else (pids ??= []).push(...list.split(/[,\s]+/).filter(Boolean).map(Number));
          break;
        } else if (c !== 'a' && c !== 'w') {
          ctx.err(procpsError('unsupported SysV option'));
          return 1;
        }
      }
      continue;
    }
    bsd = true;
    for (const c of a) {
      if (c === 'a') bsdAll = true;
      else if (c === 'u') bsdUser = true;
      else if (c === 'x') bsdNoTty = true;
      else if (c !== 'w') {
        ctx.err(procpsError('unsupported BSD option'));
        return 1;
      }
    }
  }
  const rows = psRows(args, ctx);
  const self = rows[rows.length - 1]!;
  // No selection: the caller's terminal. BSD `x` adds the processes without one, `a` those of every user (one user here).
  const selected = (r: PsRow) => (pids ? pids.includes(r.pid) : bsd ? (bsdNoTty ? true : bsdAll ? r.tty !== '?' : r.tty === self.tty) : all || r.tty === self.tty);
  const shown = rows.filter(selected).sort((a, b) => a.pid - b.pid);
  // The built-in formats head the terminal TTY; the `tty` specifier's own header is TT.
  const format = columns ?? (bsd && bsdUser ? ['user', 'pid', '%cpu', '%mem', 'vsz', 'rss', 'tty=TTY', 'stat', 'start', 'bsdtime', 'args'] : bsd ? ['pid', 'tty=TTY', 'stat', 'bsdtime', 'args'] : full ? ['user=UID', 'pid', 'ppid', 'c', 'stime', 'tty=TTY', 'time', 'args=CMD'] : ['pid', 'tty=TTY', 'time', 'comm=CMD']);
  const specs: PsColumn[] = [];
  for (const f of format) {
    const eq = f.indexOf('=');
    const key = (eq < 0 ? f : f.slice(0, eq)).toLowerCase();
    // Own keys only: `constructor` is no specifier.
    const known = Object.hasOwn(psColumns, key) ? psColumns[key] : undefined;
    if (!known) {
      ctx.err(procpsError(`unknown user-defined format specifier "${key}"`));
      return 1;
    }
    const header = eq < 0 ? known.header : f.slice(eq + 1);
    specs.push({ ...known, header, width: Math.max(known.width, header.length) });
  }
  const at = { uid: ctx.view.uid, user: userName(ctx.view.uid), now: ctx.now() };
  const line = (cells: string[]) => cells.map((c, i) => (specs[i]!.right ? c.padStart(specs[i]!.width) : i === cells.length - 1 ? c : c.padEnd(specs[i]!.width))).join(' ') + '\n';
  // A header of all empty names (`-o pid=`) is left out.
  if (specs.some((c) => c.header)) ctx.out(line(specs.map((c) => c.header)));
  for (const r of shown) ctx.out(line(specs.map((c) => c.value(r, at))));
  return 0;
}

/** A column procps can print: its header, its width (the header's when longer), its side, and its value for a process. */
interface PsColumn {
  header: string;
  width: number;
  right: boolean;
  value(r: PsRow, at: { uid: number; user: string; now: number }): string;
}

const memoryOf = (r: PsRow) => programMemoryKiB(r.argv);
const column = (header: string, width: number, right: boolean, value: PsColumn['value']): PsColumn => ({ header, width, right, value });
const pidColumn = column('PID', 7, true, (r) => String(r.pid));
const commColumn = column('COMMAND', 15, false, (r) => commandName(r).slice(0, 15));
const argsColumn = column('COMMAND', 27, false, (r) => r.argv.join(' '));
const ttyColumn = column('TT', 8, false, (r) => r.tty);
const userColumn = column('USER', 8, false, (r, at) => r.user ?? at.user);
const cpuColumn = column('%CPU', 4, true, () => '0.0');
const memColumn = column('%MEM', 4, true, (r) => ((memoryOf(r)[1] / nodeMemoryKiB) * 100).toFixed(1));

/** procps' format specifiers (ps -o), as far as the simulated processes know them: CPU time is not simulated. */
const psColumns: Record<string, PsColumn> = {
  pid: pidColumn,
  tid: pidColumn,
  ppid: column('PPID', 7, true, (r) => String(r.ppid)),
  user: userColumn,
  uname: userColumn,
  uid: column('UID', 5, true, (r, at) => String(r.uid ?? at.uid)),
  comm: commColumn,
  ucmd: commColumn,
  args: argsColumn,
  command: argsColumn,
  cmd: { ...argsColumn, header: 'CMD' },
  stat: column('STAT', 4, false, (r) => r.stat),
  s: column('S', 1, false, (r) => r.stat[0]!),
  tty: ttyColumn,
  tt: ttyColumn,
  tname: ttyColumn,
  c: column('C', 2, true, () => '0'),
  '%cpu': cpuColumn,
  pcpu: cpuColumn,
  '%mem': memColumn,
  pmem: memColumn,
  vsz: column('VSZ', 6, true, (r) => String(memoryOf(r)[0])),
  rss: column('RSS', 5, true, (r) => String(memoryOf(r)[1])),
  time: column('TIME', 8, true, () => '00:00:00'),
  bsdtime: column('TIME', 6, true, () => '0:00'),
  etime: column('ELAPSED', 11, true, (r, at) => elapsed(at.now - r.startMs)),
  start: column('START', 5, false, (r, at) => startTime(r.startMs, at.now)),
  stime: column('STIME', 5, false, (r, at) => startTime(r.startMs, at.now)),
};

/** ELAPSED: [[dd-]hh:]mm:ss. */
function elapsed(ms: number): string {
  const t = Math.max(0, Math.floor(ms / 1000));
  const two = (n: number) => String(n).padStart(2, '0');
  const [d, h, m, sec] = [Math.floor(t / 86400), Math.floor(t / 3600) % 24, Math.floor(t / 60) % 60, t % 60];
  return (d ? `${two(d)}-` : '') + (d || h ? `${two(h)}:` : '') + `${two(m)}:${two(sec)}`;
}

/** The process's name (/proc/<pid>/comm). */
const commandName = (r: PsRow): string => processName(r.argv[0] ?? '');

/** START and STIME: the time of day for a process started within a day, else the month and day. */
function startTime(startMs: number, now: number): string {
  const d = new Date(startMs);
  if (now - startMs < 86_400_000) return d.toISOString().slice(11, 16);
  return d.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' }) + String(d.getUTCDate()).padStart(2, '0');
}

/**
 * The container's processes and ps itself, last: a process of its own when
 * exec'd as such, else the child of the newest process (the shell running
 * it), on its terminal. Terminals are numbered in the order the processes
 * holding one started.
 */
function psRows(args: string[], ctx: ToolContext): PsRow[] {
  const members = runningNow(ctx).sort((a, b) => a.pid - b.pid);
  const ptys = new Map<number, string>();
  for (const m of members) if (m.tty) ptys.set(m.pid, `pts/${ptys.size}`);
  const argv = ['ps', ...args];
  const selfMember = members.find((m) => m.command.join(' ') === argv.join(' '));
  const others = members.filter((m) => m !== selfMember);
  const users = usersOf(ctx);
  const rows: PsRow[] = others.map((m) => ({ pid: m.pid, ppid: 0, tty: ptys.get(m.pid) ?? '?', stat: m.tty ? 'Ss+' : 'Ss', startMs: m.startMs, argv: m.command, user: users.member(m), uid: m.uid ?? ctx.view.uid }));
  for (const m of others) for (const c of m.children) rows.push({ pid: c.pid, ppid: m.pid, tty: ptys.get(m.pid) ?? '?', stat: 'S', startMs: m.startMs, argv: [c.title], user: users.child(m, c), uid: c.uid });
  if (selfMember) {
    const t = ptys.get(selfMember.pid);
    rows.push({ pid: selfMember.pid, ppid: 0, tty: t ?? '?', stat: t ? 'Rs+' : 'Rs', startMs: selfMember.startMs, argv });
  } else {
    const parent = rows[others.length - 1];
    // The shell waits on its foreground child: only ps holds the terminal's foreground.
    if (parent && parent.tty !== '?') parent.stat = 'Ss';
    rows.push({ pid: forkedPid(ctx, members, parent?.pid ?? 0), ppid: parent?.pid ?? 0, tty: parent?.tty ?? '?', stat: parent?.tty !== undefined && parent.tty !== '?' ? 'R+' : 'R', startMs: ctx.now(), argv });
  }
  return rows;
}

/** A signal named as kill takes it (`TERM`, `SIGTERM`, `15`); undefined for one it does not know. */
function parseSignal(spec: string): string | undefined {
  if (/^\d+$/.test(spec)) {
    const n = Number(spec);
    return n === 0 ? '0' : signalNames[n - 1];
  }
  const name = spec.toUpperCase().replace(/^SIG/, '');
  return signalNames.includes(name) ? name : undefined;
}

/** busybox kill (and the shell's builtin): SIGTERM by default, `-SIG`, `-s SIG`, `-l`. */
export function kill(args: string[], ctx: ToolContext): number {
  let signal = 'TERM';
  let i = 0;
  if (args[0] === '-l') {
    ctx.out(signalNames.map((n, k) => `${k + 1}) ${n}`).join('\n') + '\n');
    return 0;
  }
  if (args[0] === '-s' || args[0] === '-n') {
    const s = args[1] === undefined ? undefined : parseSignal(args[1]);
    if (!s) {
      ctx.err(`kill: bad signal name '${args[1] ?? ''}'\n`);
      return 1;
    }
    signal = s;
    i = 2;
  } else if (args[0]?.startsWith('-') && args[0] !== '--') {
    const s = parseSignal(args[0]!.slice(1));
    if (!s) {
      ctx.err(`kill: bad signal name '${args[0]!.slice(1)}'\n`);
      return 1;
    }
    signal = s;
    i = 1;
  }
  if (args[i] === '--') i++;
  const pids = args.slice(i);
  if (!pids.length) {
    ctx.err('kill: usage: kill [-s SIG | -SIG] PID...\n');
    return 1;
  }
  const now = ctx.now();
  const members = runningNow(ctx);
  let code = 0;
  for (const p of pids) {
    if (!/^\d+$/.test(p)) {
      ctx.err(`kill: bad pid '${p}'\n`);
      code = 1;
      continue;
    }
    const target = members.find((m) => m.pid === Number(p));
    // A server's worker ends, and its master starts another in its place, with the next pid.
    const master = target ? undefined : members.find((m) => m.children.some((c) => c.pid === Number(p)));
    if (master) {
      if ((signal === 'TERM' || signal === 'INT' || signal === 'KILL') && ctx.files instanceof ProcessFiles) master.signalChild(Number(p), signal, now, ctx.files.fs.execPid());
      continue;
    }
    if (!target) {
      ctx.err(`kill: can't kill pid ${p}: No such process\n`);
      code = 1;
      continue;
    }
    // Signal 0 only asks whether it exists; the rest are delivered (a signal a process ignores is still sent).
    if (signal === 'TERM' || signal === 'INT' || signal === 'KILL') target.signal(signal, now);
    // A server that reloads on SIGHUP (nginx) starts new workers; the sender is the process running kill.
    else if (signal === 'HUP' && ctx.files instanceof ProcessFiles) {
      const fs = ctx.files.fs;
      const sender = readerNow() as Partial<ContainerMember> | undefined;
      target.hangUp(now, typeof sender?.pid === 'number' ? sender.pid : 0, () => fs.execPid());
    }
  }
  return code;
}
