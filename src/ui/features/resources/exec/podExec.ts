/**
 * What the Exec view asks for, as `kubectl exec` asks it: the pods/exec path
 * with kubectl's parameters for -i/-t, the command line as kubectl would be
 * typed for it, and how the end is printed (kubectl's `command terminated
 * with exit code N`, or the server's error).
 */
import type { Status } from '../../../api';
import { serverErrorText } from '../logs/podLogs';
import type { ExecEnd } from './execStream';

export interface PodExecOptions {
  container: string;
  command: readonly string[];
  /** -i: the process reads what is typed. */
  stdin: boolean;
  /** -t: a terminal (stdout and stderr merged, keystrokes sent as typed). */
  tty: boolean;
}

/** A streaming subresource's path with kubectl's stream parameters: stderr only without a terminal (a terminal merges it into stdout). */
function streamPath(subresource: 'exec' | 'attach', namespace: string, name: string, query: URLSearchParams, o: { stdin: boolean; tty: boolean }): string {
  if (o.stdin) query.set('stdin', 'true');
  query.set('stdout', 'true');
  if (o.tty) query.set('tty', 'true');
  else query.set('stderr', 'true');
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}/${subresource}?${query}`;
}

/** The pods/exec path kubectl asks for. */
export function podExecPath(namespace: string, name: string, o: PodExecOptions): string {
  const query = new URLSearchParams();
  for (const c of o.command) query.append('command', c);
  query.set('container', o.container);
  return streamPath('exec', namespace, name, query, o);
}

/** The pods/attach path kubectl attach asks for (the container's own process). */
export function podAttachPath(namespace: string, name: string, o: Omit<PodExecOptions, 'command'>): string {
  return streamPath('attach', namespace, name, new URLSearchParams({ container: o.container }), o);
}

/** kubectl's -i and -t as typed together. */
const streamFlags = (o: { stdin: boolean; tty: boolean }): string => (o.stdin && o.tty ? '-it' : o.stdin ? '-i' : o.tty ? '-t' : '');

/** The kubectl attach command for the same stream. */
export function kubectlAttachCommand(name: string, namespace: string, o: Omit<PodExecOptions, 'command'>): string {
  return ['kubectl attach', streamFlags(o), name, `-n ${namespace}`, `-c ${o.container}`].filter(Boolean).join(' ');
}

/** What kubectl attach -it prints when the session ends while the pod runs on (a pod that restarts its containers). */
export function attachEndedText(pod: string, container: string): string {
  return `Session ended, resume using 'kubectl attach ${pod} -c ${container} -i -t' command when the pod is running`;
}

export interface PodDebugOptions {
  /** The ephemeral container's name (kubectl's debugger-xxxxx). */
  name: string;
  image: string;
  /** --target: the container whose process namespace it joins; '' for none. */
  target: string;
  /** Its command; empty for the image's own. */
  command: readonly string[];
  stdin: boolean;
  tty: boolean;
}

/** utilrand's alphabet: no vowels, no look-alikes. */
const randAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** kubectl debug's container name when none is given: debugger- and five random characters. */
export function debugContainerName(random: () => number = Math.random): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += randAlphabet[Math.floor(random() * randAlphabet.length)];
  return `debugger-${suffix}`;
}

/**
 * The strategic merge patch kubectl debug sends to pods/ephemeralcontainers:
 * the new container with what kubectl sets on it (its fields in kubectl's
 * order, as its JSON encoding sorts map keys).
 */
export function debugPatch(o: PodDebugOptions): { spec: { ephemeralContainers: Record<string, unknown>[] } } {
  const c: Record<string, unknown> = {};
  if (o.command.length) c['command'] = [...o.command];
  c['image'] = o.image;
  c['name'] = o.name;
  c['resources'] = {};
  if (o.stdin) c['stdin'] = true;
  if (o.target) c['targetContainerName'] = o.target;
  c['terminationMessagePolicy'] = 'File';
  if (o.tty) c['tty'] = true;
  return { spec: { ephemeralContainers: [c] } };
}

/** The kubectl debug command that adds the same container (its name left to kubectl). */
export function kubectlDebugCommand(pod: string, namespace: string, o: Omit<PodDebugOptions, 'name'>): string {
  const words = ['kubectl debug', streamFlags(o), pod, `-n ${namespace}`, `--image=${shellWord(o.image)}`, o.target && `--target=${o.target}`];
  if (o.command.length) words.push('--', ...o.command.map(shellWord));
  return words.filter(Boolean).join(' ');
}

/** What kubectl debug prints before attaching (stderr): the target's caveat and the name it chose. */
export function debugPreamble(o: Pick<PodDebugOptions, 'name' | 'target'>): string[] {
  const lines: string[] = [];
  if (o.target) lines.push(`Targeting container "${o.target}". If you don't see processes from this container it may be because the container runtime doesn't support this feature.`);
  lines.push(`Defaulting debug container name to ${o.name}.`);
  return lines;
}

/** A word as a POSIX shell needs it written to stay one word. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The kubectl command that opens the same stream. */
export function kubectlExecCommand(name: string, namespace: string, o: PodExecOptions): string {
  return ['kubectl exec', streamFlags(o), name, `-n ${namespace}`, `-c ${o.container}`, '--', ...o.command.map(shellWord)].filter(Boolean).join(' ');
}

/**
 * Splits a command line into words as a POSIX shell would for simple input:
 * blanks separate words, single quotes keep everything, double quotes keep
 * all but `\"` and `\\`, a backslash outside quotes keeps the next
 * character. undefined for an unclosed quote.
 */
export function splitCommand(line: string): string[] | undefined {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) return undefined;
      word += line.slice(i + 1, close);
      inWord = true;
      i = close;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && (line[j + 1] === '"' || line[j + 1] === '\\')) j++;
        word += line[j];
      }
      if (j >= line.length) return undefined;
      inWord = true;
      i = j;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** What kubectl prints when the stream ends: nothing for success, the exit code, or the server's error. */
export function execEndText(end: ExecEnd): string {
  if (end.kind === 'closed') return '';
  const status: Status = end.status;
  if (end.kind === 'done' && status.status === 'Success') return '';
  if (end.kind === 'done' && status.reason === 'NonZeroExitCode') {
    const code = status.details?.causes?.find((c) => c.reason === 'ExitCode')?.message ?? '';
    return `command terminated with exit code ${code}`;
  }
  return serverErrorText(status);
}
