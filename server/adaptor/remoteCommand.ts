/**
 * The streaming side of exec on the Node host: remotecommand's WebSocket
 * channel protocols (v5.channel.k8s.io, v4.channel.k8s.io) over the session
 * the core handed over. Each message is one channel byte then data: 0 stdin,
 * 1 stdout, 2 stderr, 3 the error channel (the command's end as a Status),
 * 4 resize; v5 adds 255, the client closing a channel (its stdin).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { isProcessStream, type ExecStreamSession, type LineSession, type ProcessStreamSession } from '../../src/core/http/upgrade';
import { ttyLineDiscipline } from '../../src/core/util/ttyLineDiscipline';
import { acceptWebSocket, isWebSocketRequest, offeredProtocols, refuseUpgrade } from './websocket';
import { ByteTextDecoder, decodeBytes, encodeText } from '../../src/core/simulation/byteText';

/** What the kubelet's streaming server negotiates, newest first. */
export const channelProtocols = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

const stdinChannel = 0;
const stdoutChannel = 1;
const stderrChannel = 2;
const errorChannel = 3;
const closeChannel = 255;

const encoder = new TextEncoder();

/** The channel protocol both sides speak, or undefined once the client has been told why there is none. */
function negotiate(incoming: IncomingMessage, socket: Duplex): string | undefined {
  if (!isWebSocketRequest(incoming)) {
    // SPDY/3.1 is not spoken here: kubectl's default WebSocket executor is.
    refuseUpgrade(socket, 'unable to upgrade: the simulated kubelet streams exec and attach over WebSockets only (v5.channel.k8s.io, v4.channel.k8s.io); unset KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false');
    return undefined;
  }
  const offered = offeredProtocols(incoming);
  const protocol = offered.find((p) => channelProtocols.includes(p));
  if (!protocol) refuseUpgrade(socket, `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server supports [${channelProtocols.join(' ')}]`);
  return protocol;
}

/** Upgrades the connection and runs the session over its channels. */
export function serveExecStream(session: ExecStreamSession | ProcessStreamSession, incoming: IncomingMessage, socket: Duplex, head: Buffer): void {
  const protocol = negotiate(incoming, socket);
  if (!protocol) return;
  if (isProcessStream(session)) serveProcessStream(session, protocol, incoming, socket, head);
  else serveCommand(session, protocol, incoming, socket, head);
}

/** A process streamed as it runs: output as it is written, stdin as it comes, the Status when it ends. */
function serveProcessStream(session: ProcessStreamSession, protocol: string, incoming: IncomingMessage, socket: Duplex, head: Buffer): void {
  const { options } = session;
  let finished = false;
  // Bytes are the process's text without loss (a binary kubectl cp), a character split between frames included.
  const stdinText = new ByteTextDecoder();
  const send = (channel: number, data: Uint8Array) => ws.send(Buffer.concat([Buffer.from([channel]), data]));
  const ws = acceptWebSocket(incoming, socket, head, protocol, {
    message(data) {
      if (!data.length || finished) return;
      if (data[0] === stdinChannel) attached.input(stdinText.decode(data.subarray(1)));
      else if (data[0] === closeChannel && protocol === 'v5.channel.k8s.io' && data[1] === stdinChannel) attached.closeInput();
    },
    closed: () => {
      finished = true;
      attached.detach();
    },
  });
  send(options.stdout ? stdoutChannel : options.stderr ? stderrChannel : errorChannel, new Uint8Array());
  const attached = session.attach((stream, text) => {
    if (!finished) send(stream === 1 ? stdoutChannel : stderrChannel, encodeText(text));
  });
  void attached.done.then((status) => {
    if (finished) return;
    finished = true;
    send(errorChannel, encoder.encode(JSON.stringify(status)));
    ws.close(1000);
  });
}

/** A command run over its whole input at once (or a line at a time, for a shell). */
function serveCommand(session: ExecStreamSession, protocol: string, incoming: IncomingMessage, socket: Duplex, head: Buffer): void {
  const { options } = session;
  const stdin: Buffer[] = [];
  const lineText = new ByteTextDecoder();
  let started = false;
  let finished = false;
  // The client gone or the command ended from the terminal (^C): a process still running stops.
  const gone = new AbortController();
  const send = (channel: number, data: Uint8Array) => ws.send(Buffer.concat([Buffer.from([channel]), data]));
  const finish = (status: Record<string, unknown>) => {
    if (finished) return;
    finished = started = true;
    gone.abort();
    send(errorChannel, encoder.encode(JSON.stringify(status)));
    ws.close(1000);
  };
  const start = () => {
    if (started) return;
    started = true;
    void session.run(decodeBytes(Buffer.concat(stdin)), gone.signal).then(
      (result) => {
        if (options.stdout && result.stdout) send(stdoutChannel, encodeText(result.stdout));
        if (options.stderr && result.stderr) send(stderrChannel, encodeText(result.stderr));
        finish(result.status);
      },
      (err: unknown) => finish({ metadata: {}, status: 'Failure', message: `Internal error occurred: ${err instanceof Error ? err.message : String(err)}`, reason: 'InternalError', code: 500 }),
    );
  };
  const write = (stdout: string, stderr: string) => {
    if (options.tty) {
      const merged = (stdout + stderr).replace(/\r?\n/g, '\r\n');
      if (merged) send(stdoutChannel, encodeText(merged));
      return;
    }
    if (options.stdout && stdout) send(stdoutChannel, encodeText(stdout));
    if (options.stderr && stderr) send(stderrChannel, encodeText(stderr));
  };
  const lines = session.shell ? lineDiscipline(session.shell, options.tty, write, (code) => finish(session.statusFor(code))) : undefined;
  const ws = acceptWebSocket(incoming, socket, head, protocol, {
    message(data) {
      if (!data.length || finished) return;
      const channel = data[0]!;
      if (channel === stdinChannel) {
        if (lines) lines.input(lineText.decode(data.subarray(1)));
        else if (options.tty && data.includes(0x03, 1)) finish(session.statusFor(130));
        // A terminal's ^D is the end of input.
        else if (options.tty && data.includes(0x04, 1)) {
          stdin.push(data.subarray(1, data.indexOf(0x04, 1)));
          start();
        } else stdin.push(data.subarray(1));
      } else if (channel === closeChannel && protocol === 'v5.channel.k8s.io' && data[1] === stdinChannel) {
        if (lines) lines.end();
        else start();
      }
    },
    // The client went: a command still waiting for its input ends here.
    closed: () => {
      finished = started = true;
      gone.abort();
    },
  });
  // The kubelet's first message, empty, on the lowest writable channel: the streams are ready.
  send(options.stdout ? stdoutChannel : options.stderr ? stderrChannel : errorChannel, new Uint8Array());
  if (lines) lines.begin();
  else if (!session.readsStdin) start();
}

/**
 * Feeds a shell its input a line at a time. With a terminal, the terminal's
 * part too: the prompt, and the canonical line discipline
 * (ttyLineDiscipline.ts): echo, DEL, ^U, ^W, ^C (the line dropped; the
 * shell's SIGINT a new prompt), ^D (a partial line handed over, on an empty
 * line the end of input). Without one, kubectl's own terminal edited the
 * lines: they come as typed.
 */
export function lineDiscipline(shell: LineSession, tty: boolean, write: (stdout: string, stderr: string) => void, exit: (code: number) => void) {
  // What the shell has read of its next line (a partial line handed over by ^D waits for the rest).
  let pending = '';
  let done = false;
  const run = (line: string, last = false) => {
    const result = shell.line(line);
    write(result.stdout, result.stderr);
    if (result.exit !== undefined) {
      done = true;
      exit(result.exit);
    } else if (tty && !last) write(shell.prompt(), '');
  };
  const take = (text: string) => {
    pending += text;
    for (let nl = pending.indexOf('\n'); nl >= 0 && !done; nl = pending.indexOf('\n')) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      run(line);
    }
  };
  const end = () => {
    if (done) return;
    if (pending) run(pending, true);
    if (!done) {
      done = true;
      exit(shell.lastStatus());
    }
  };
  const terminal = tty
    ? ttyLineDiscipline({
        // Keys typed after the shell ended in the same message reach no one.
        echo: (text) => done || write(text, ''),
        data: take,
        // The shell leaves its prompt's line at the end of its input.
        eof: () => {
          if (done) return;
          write('\n', '');
          end();
        },
        signal: (sig) => {
          if (sig === 'SIGINT' && !done) write('\n' + shell.prompt(), '');
        },
      })
    : undefined;
  return {
    begin() {
      if (tty) write(shell.prompt(), '');
    },
    input(text: string) {
      if (done) return;
      if (terminal) terminal.input(text);
      else take(text);
    },
    end,
  };
}
