/** Runs an upgraded stream session as a client would: all of stdin, then its end; what came back on each channel. */
import { isPortForward, isProcessStream, type StreamResult, type StreamSession } from '../http/upgrade';

export async function runStreamSession(session: StreamSession, stdin = ''): Promise<StreamResult> {
  if (isPortForward(session)) throw new Error('a port-forward session has no command to run');
  if (!isProcessStream(session)) return session.run(stdin);
  const out = { stdout: '', stderr: '' };
  const attached = session.attach((stream, text) => {
    if (stream === 1) out.stdout += text;
    else out.stderr += text;
  });
  if (stdin) attached.input(stdin);
  if (session.options.stdin) attached.closeInput();
  const status = await attached.done;
  return { ...out, status };
}
