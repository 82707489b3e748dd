/**
 * Streams a simulated container's process to a client (attach, and exec of
 * a process that takes time): what it writes, sent as the server clock
 * reaches it; what the client sends, given to the process as it comes. With
 * a terminal, the part a pty plays too: keystrokes echoed, a line edited
 * (backspace, ^C drops it) and handed over on Enter, ^D on an empty line the
 * end of input; ^C's SIGINT is handled by a shell, and kills any other
 * process. A client leaving does not end the process: as containerd does,
 * it runs on unattended.
 */
import type { Clock } from '../util/clock';
import type { AttachedProcess, ProcessStreamSession, StreamOptions } from '../http/upgrade';
import type { RecordedProcess } from './containerRuntime';

export interface ProcessStreamOptions {
  /** What the process wrote before the client came is not sent (attach starts from now). */
  fromNow?: boolean;
  /** The error channel's Status for the process's exit code. */
  statusFor(code: number): Record<string, unknown>;
  /** The client leaving closes the process's stdin (a container's stdinOnce). */
  closeInputOnDetach?: boolean;
  /**
   * The terminal's SIGINT (^C): a process that handles it (an interactive
   * shell) writes `writes` and reads its next line; `dies`: it is killed by
   * it (exit code 130). Default: handled with a newline.
   */
  sigint?: 'dies' | { writes: string };
  /** Told once the process has ended (exited or was killed), with when: not when the client leaves, as a process goes on without it. */
  onEnd?(at: number): void;
}

/** A process killed by a signal ends with 128 + its number. */
const sigintExit = 130;
/** How long the stream sleeps when nothing is due (input or the clock wakes it sooner). */
const idleMs = 3_600_000;

/** A terminal's line discipline in front of the process: echo and line editing, a whole line given on Enter. */
function terminal(echo: (text: string) => void, give: (text: string) => void, end: () => void, interrupt: () => void) {
  let line = '';
  let escape = 0;
  return (text: string) => {
    for (const c of text) {
      if (escape) {
        // ESC [ ... final letter: arrow keys and the like are ignored.
        if (escape === 1) escape = c === '[' ? 2 : 0;
        else if (/[A-Za-z~]/.test(c)) escape = 0;
      } else if (c === '\x1b') escape = 1;
      else if (c === '\r' || c === '\n') {
        echo('\r\n');
        give(line + '\n');
        line = '';
      } else if (c === '\x7f' || c === '\b') {
        if (line) {
          line = [...line].slice(0, -1).join('');
          echo('\b \b');
        }
      } else if (c === '\x03') {
        echo('^C');
        line = '';
        interrupt();
      } else if (c === '\x04') {
        if (!line) end();
      } else if (c >= ' ') {
        line += c;
        echo(c);
      }
    }
  };
}

export function processStreamSession(clock: Clock, options: StreamOptions, recorded: RecordedProcess, opts: ProcessStreamOptions): ProcessStreamSession {
  return {
    options,
    attach(write): AttachedProcess {
      const gone = new AbortController();
      /** Killed by the terminal's SIGINT. */
      let killed = false;
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

      const done = (async () => {
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
            return opts.statusFor(killed && recorded.stoppedAt === at ? sigintExit : (recorded.exit?.code ?? 0));
          }
          if (gone.signal.aborted) return opts.statusFor(0);
          wake = new AbortController();
          const signal = AbortSignal.any([wake.signal, gone.signal]);
          // Its next write, or where it stopped running ahead (it waits there to look at the cluster): a look again is due then.
          const due = Math.min(log.next ?? Infinity, recorded.runTo);
          await clock.sleep(Math.min(idleMs, Math.max(1, due - now())), signal).catch(() => undefined);
        }
      })();

      const give = (text: string) => {
        recorded.input(text, now());
        nudge();
      };
      const closeInput = () => {
        recorded.closeInput(now());
        nudge();
      };
      const interrupt = () => {
        const sigint = opts.sigint ?? { writes: '\n' };
        if (sigint === 'dies') {
          killed = true;
          recorded.stop(now());
          nudge();
        } else {
          write(1, sigint.writes.replace(/\n/g, '\r\n'));
          give('\n');
        }
      };
      const type = options.tty ? terminal((t) => write(1, t), give, closeInput, interrupt) : give;
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
