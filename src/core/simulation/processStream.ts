/**
 * Streams a simulated container's process to a client (attach, and exec of
 * a process that takes time): what it writes, sent as the server clock
 * reaches it; what the client sends, given to the process as it comes. With
 * a terminal, the part a pty plays too (util/ttyLineDiscipline.ts, canonical
 * mode): keystrokes echoed, a line edited and handed over on Enter, ^D on an
 * empty line the end of input. ^C's SIGINT is handled by a shell or a REPL,
 * and kills any other process, as ^\ does (a shell ignores it); ^Z's stop
 * is discarded, the exec'd process's group being orphaned. A client leaving
 * does not end the process: as containerd does, it runs on unattended.
 */
import type { Clock } from '../util/clock';
import type { AttachedProcess, ProcessStreamSession, StreamOptions } from '../http/upgrade';
import type { RecordedProcess } from './containerRuntime';
import { ttyLineDiscipline, type TtySignal } from '../util/ttyLineDiscipline';

export interface ProcessStreamOptions {
  /** What the process wrote before the client came is not sent (attach starts from now). */
  fromNow?: boolean;
  /** The error channel's Status for the process's exit code. */
  statusFor(code: number): Record<string, unknown>;
  /** The client leaving closes the process's stdin (a container's stdinOnce). */
  closeInputOnDetach?: boolean;
  /**
   * The terminal's SIGINT (^C): a process that handles it (an interactive
   * shell, a REPL) writes `handles` and reads its next line, and ignores
   * SIGQUIT; one that `dies` of either writes that (a handler's last words,
   * nc's `punt!`) and is gone (exit code 130, 131); one `ignored` does
   * nothing (a container's PID 1 with no handler). Default: handled with a
   * newline (a shell).
   */
  sigint?: { handles: string } | { dies: string } | { ignored: true };
  /** Told once the process has ended (exited or was killed), with when: not when the client leaves, as a process goes on without it. */
  onEnd?(at: number): void;
}

/** A process killed by a signal ends with 128 + its number. */
const killedBy = { SIGINT: 130, SIGQUIT: 131 } as const;
/** How long the stream sleeps when nothing is due (input or the clock wakes it sooner). */
const idleMs = 3_600_000;

export function processStreamSession(clock: Clock, options: StreamOptions, recorded: RecordedProcess, opts: ProcessStreamOptions): ProcessStreamSession {
  return {
    options,
    attach(write): AttachedProcess {
      const gone = new AbortController();
      /** The code of a process the terminal's signal killed. */
      let killed: number | undefined;
      let wake = new AbortController();
      const now = () => clock.now().getTime();
      const history = opts.fromNow ? recorded.read(now()).entries : [];
      let lastSeq = history.length ? history[history.length - 1]!.seq : -1;
      // How much of the last entry went out: a partial line (a prompt) grows with the next write.
      let lastSent = history.length ? history[history.length - 1]!.line.length : 0;
      const send = (stream: 1 | 2, text: string) => {
        if (options.tty) write(1, text);
        else if (stream === 1 ? options.stdout : options.stderr) write(stream, text);
      };
      const nudge = () => wake.abort();
      // Stopped with its container: the stream ends then. An answer it waited for (the API server's) lets it go on.
      const unwatchStop = recorded.onStop(nudge);
      const unwatchAnswers = recorded.onAnswered(nudge);
      const unwatch = () => {
        unwatchStop();
        unwatchAnswers();
      };

      const done = (async () => {
        try {
          return await follow();
        } finally {
          unwatch();
        }
      })();
      async function follow(): Promise<Record<string, unknown>> {
        for (;;) {
          const log = recorded.read(now());
          for (const e of log.entries) {
            if (e.seq < lastSeq) continue;
            if (e.seq === lastSeq) {
              if (e.line.length > lastSent) send(e.stream, e.line.slice(lastSent));
            } else send(e.stream, e.line);
            lastSeq = e.seq;
            lastSent = e.line.length;
          }
          if (log.ended) {
            const at = Math.min(recorded.stoppedAt ?? Infinity, recorded.exit?.at ?? Infinity);
            opts.onEnd?.(at);
            // Stopped with its container, it was killed (SIGKILL: 137); by the terminal's ^C, with its code.
            return opts.statusFor(killed !== undefined && recorded.stoppedAt === at ? killed : (recorded.exit?.code ?? (recorded.stoppedAt !== undefined ? 137 : 0)));
          }
          if (gone.signal.aborted) return opts.statusFor(0);
          wake = new AbortController();
          const signal = AbortSignal.any([wake.signal, gone.signal]);
          // Its next write, or where it stopped running ahead (it waits there to look at the cluster): a look again is due then.
          const due = Math.min(log.next ?? Infinity, recorded.runTo);
          await clock.sleep(Math.min(idleMs, Math.max(1, due - now())), signal).catch(() => undefined);
        }
      }

      const give = (text: string) => {
        recorded.input(text, now());
        nudge();
      };
      const closeInput = () => {
        recorded.closeInput(now());
        nudge();
      };
      const signal = (sig: TtySignal) => {
        const sigint = opts.sigint ?? { handles: '\n' };
        if (sig === 'SIGTSTP' || 'ignored' in sigint) return;
        if ('dies' in sigint) {
          if (sigint.dies) write(1, sigint.dies.replace(/\n/g, '\r\n'));
          killed = killedBy[sig];
          recorded.stop(now());
          nudge();
        } else if (sig === 'SIGINT') {
          write(1, sigint.handles.replace(/\n/g, '\r\n'));
          give('\n');
        }
      };
      const tty = options.tty ? ttyLineDiscipline({ echo: (t) => write(1, t), data: give, eof: closeInput, signal }) : undefined;
      const type = tty ? (text: string) => tty.input(text) : give;
      return {
        input: (text) => {
          if (options.stdin) type(text);
        },
        closeInput: () => {
          if (options.stdin) closeInput();
        },
        done,
        detach() {
          if (opts.closeInputOnDetach && options.stdin) recorded.closeInput(now());
          gone.abort();
        },
      };
    },
  };
}
