/**
 * busybox `ps` and `kill` over the processes of a container's run: its own
 * process (pid 1) and those exec'd into it (a `kubectl exec`, an exec
 * probe), which share its files (containerFiles.ts). What matters for
 * learning is the namespace's init: `kill 1` ends a container only when
 * its process handles SIGTERM (nginx shuts down, exit 0, and the kubelet
 * restarts it), while a shell or `sleep` as pid 1 ignores it, and SIGKILL
 * from inside the container never reaches pid 1.
 */
import { ProcessFiles, type ContainerMember } from './containerFiles';
import { userName, type Tool, type ToolContext } from './containerTools';

/** The signals kill knows by name and number (Linux x86-64 numbering), in `kill -l` order. */
const signalNames = ['HUP', 'INT', 'QUIT', 'ILL', 'TRAP', 'ABRT', 'BUS', 'FPE', 'KILL', 'USR1', 'SEGV', 'USR2', 'PIPE', 'ALRM', 'TERM', 'STKFLT', 'CHLD', 'CONT', 'STOP', 'TSTP', 'TTIN', 'TTOU', 'URG', 'XCPU', 'XFSZ', 'VTALRM', 'PROF', 'WINCH', 'POLL', 'PWR', 'SYS'];

/** The container's processes running now, or none for a process outside any container run. */
function runningNow(ctx: ToolContext): ContainerMember[] {
  return ctx.files instanceof ProcessFiles ? ctx.files.fs.running(ctx.now()) : [];
}

/**
 * busybox ps: PID, USER, TIME, COMMAND of every process running now. BSD
 * style words (`aux`) and the desktop options (-e -f -a -A -l -w) are
 * accepted and change nothing, as in busybox. A ps run by a shell shows
 * itself too, as the shell's child.
 */
export const ps: Tool = (args, ctx) => {
  for (const a of args) {
    if (a.startsWith('-') && !/^-[aAdeflwT]+$/.test(a)) {
      ctx.err(`ps: unrecognized option: ${a.slice(1).replace(/[aAdeflwT]/g, '')[0] ?? a}\n`);
      return 1;
    }
  }
  const rows = runningNow(ctx).map((m) => ({ pid: m.pid, command: m.command.join(' ') }));
  // Run by a shell (`sh -c ps`), ps is that shell's child, with the next pid.
  if (!rows.some((r) => r.command === ['ps', ...args].join(' '))) rows.push({ pid: Math.max(0, ...rows.map((r) => r.pid)) + 1, command: ['ps', ...args].join(' ') });
  ctx.out('PID   USER     TIME  COMMAND\n');
  for (const r of rows.sort((a, b) => a.pid - b.pid)) ctx.out(`${String(r.pid).padStart(5)} ${userName(ctx.view.uid).padEnd(8)} ${'0:00'.padStart(5)} ${r.command}\n`);
  return 0;
};

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
    if (!target) {
      ctx.err(`kill: can't kill pid ${p}: No such process\n`);
      code = 1;
      continue;
    }
    // Signal 0 only asks whether it exists; the rest are delivered (a signal a process ignores is still sent).
    if (signal === 'TERM' || signal === 'INT' || signal === 'KILL') target.signal(signal, now);
  }
  return code;
}
