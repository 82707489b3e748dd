/**
 * Streams a request is upgraded to (exec, attach, port-forward): the core decides authorization,
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

/** A process streamed as it runs (attach, exec of a process that takes time): its output as written, its input as it comes. */
export interface ProcessStreamSession {
  options: StreamOptions;
  /** Starts streaming: `write` gets what the process writes (with a terminal, stdout only). */
  attach(write: (stream: 1 | 2, text: string) => void): AttachedProcess;
}

export interface AttachedProcess {
  /** What the client sends on stdin (with a terminal, keystrokes). */
  input(text: string): void;
  /** The client closed its stdin. */
  closeInput(): void;
  /** The error channel's Status, once the process ends. */
  done: Promise<Record<string, unknown>>;
  /** The client went: streaming stops (an attached container's process runs on). */
  detach(): void;
}

/** A port-forward (pods/portforward): each connection the client opens to a port is dialed to the pod's. */
export interface PortForwardSession {
  kind: 'portforward';
  /** A connection to the pod's port, or the runtime's reason it could not be made. */
  dial(port: number): PortForwardConnection | { error: string };
}

export interface PortForwardConnection {
  /** What the server in the pod answers to what the client sent (a whole HTTP request, or all it sent before closing). */
  exchange(request: string): string;
}

export type StreamSession = ExecStreamSession | ProcessStreamSession | PortForwardSession;

export const isProcessStream = (s: StreamSession): s is ProcessStreamSession => 'attach' in s;

export const isPortForward = (s: StreamSession): s is PortForwardSession => 'dial' in s;

const sessions = new WeakMap<Request, StreamSession>();

/** httpstream.IsUpgradeRequest: a Connection header naming upgrade. */
export function isUpgradeRequest(request: Request): boolean {
  return (request.headers.get('connection') ?? '').split(',').some((t) => t.trim().toLowerCase() === 'upgrade');
}

/** Hands the request's connection to the session; the answer is a placeholder the host replaces with the upgrade. */
export function acceptUpgrade(request: Request, session: StreamSession): Response {
  sessions.set(request, session);
  return new Response(null, { status: 200 });
}

/** The session a request was upgraded to, if any. */
export function upgradeSessionOf(request: Request): StreamSession | undefined {
  return sessions.get(request);
}
