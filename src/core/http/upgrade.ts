/**
 * Streams a request is upgraded to (exec): the core decides authorization,
 * admission and the backend and hands the host a session; the host speaks
 * the wire protocol (WebSocket channels) over the connection it upgrades.
 * The service worker takes no upgrades: its requests never carry one.
 */

/** The streams a client asked for (PodExecOptions' stdin, stdout, stderr, tty). */
export interface StreamOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** What a finished remote command wrote, and the Status its error channel carries. */
export interface StreamResult {
  stdout: string;
  stderr: string;
  /** metav1.Status: Success, NonZeroExitCode with the code, or the runtime's failure. */
  status: Record<string, unknown>;
}

/** A shell reading its standard input a line at a time. */
export interface LineSession {
  prompt(): string;
  /** One line's output; `exit` when the line ended the shell. */
  line(text: string): { stdout: string; stderr: string; exit?: number };
  /** The code the shell ends with when its input closes. */
  lastStatus(): number;
}

export interface ExecStreamSession {
  options: StreamOptions;
  /** Whether the command reads its standard input (the host then waits for it to close). */
  readsStdin: boolean;
  /** Runs the command over the whole standard input; `signal` aborts when the client has gone (the process is stopped). */
  run(stdin: string, signal?: AbortSignal): Promise<StreamResult>;
  /** Set when the command is a shell reading stdin: the host feeds it lines (with a terminal: echo and a prompt). */
  shell?: LineSession;
  /** The error channel's Status for an exit code. */
  statusFor(code: number): Record<string, unknown>;
}

const sessions = new WeakMap<Request, ExecStreamSession>();

/** httpstream.IsUpgradeRequest: a Connection header naming upgrade. */
export function isUpgradeRequest(request: Request): boolean {
  return (request.headers.get('connection') ?? '').split(',').some((t) => t.trim().toLowerCase() === 'upgrade');
}

/** Hands the request's connection to the session; the answer is a placeholder the host replaces with the upgrade. */
export function acceptUpgrade(request: Request, session: ExecStreamSession): Response {
  sessions.set(request, session);
  return new Response(null, { status: 200 });
}

/** The session a request was upgraded to, if any. */
export function upgradeSessionOf(request: Request): ExecStreamSession | undefined {
  return sessions.get(request);
}
