/**
 * The Go side of the apply benchmark: sigs.k8s.io/structured-merge-diff
 * itself (Debian's golang-k8s-sigs-structured-merge-diff-dev 4.1.2, the
 * library of /work/shared/baselines/structured-merge-diff), driven by
 * bench/smd/main.go in a child process that times batches on request.
 *
 * The Go tool chain and the library come from Debian (the machine reaches
 * its archive, not the Go module proxy): when either is missing they are
 * installed with apt-get, which needs root. The program is built in GOPATH
 * mode into build/smd-baseline and rebuilt only when missing or older than
 * its source. Benches only: tests never install or build anything.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repo = join(benchDir, '..');
/** The shared baseline (its oracle package parses the schema; its schema types the Deployment). */
const baselineDir = process.env.SMD_BASELINE_DIR ?? '/work/shared/baselines/structured-merge-diff';
const librarySource = '/usr/share/gocode/src/sigs.k8s.io/structured-merge-diff';
const outDir = join(repo, 'build', 'smd-baseline');
const binary = join(outDir, 'smd-apply-bench');
const source = join(benchDir, 'smd', 'main.go');
export const smdSchemaFile = join(baselineDir, 'schemas', 'deployment.json');

const hasGo = () => spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;

function sh(cmd: string, args: string[], env?: NodeJS.ProcessEnv): string | undefined {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: env ? { ...process.env, ...env } : process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status === 0) return undefined;
  return `${cmd} ${args.join(' ')}: ${r.error?.message ?? (r.stderr || r.stdout).trim().split('\n').slice(-3).join(' / ')}`;
}

/** Installs what is missing; the reason it could not, or undefined. */
function ensureToolchain(): string | undefined {
  if (hasGo() && existsSync(librarySource)) return undefined;
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  const failed =
    sh('apt-get', ['update', '-qq'], env) ??
    sh('apt-get', ['install', '-y', '-qq', 'golang-go', 'golang-k8s-sigs-structured-merge-diff-dev'], env);
  if (failed) return failed;
  if (!hasGo()) return 'apt-get installed golang-go but `go` is not on PATH';
  if (!existsSync(librarySource)) return `apt-get ran but ${librarySource} is missing`;
  return undefined;
}

/** Builds the program when missing or stale; the reason it could not, or undefined. */
function ensureBinary(): string | undefined {
  if (!existsSync(join(baselineDir, 'gopath', 'src', 'ssa-oracle', 'oracle'))) return `no structured-merge-diff baseline at ${baselineDir}`;
  if (existsSync(binary) && statSync(binary).mtimeMs >= statSync(source).mtimeMs) return undefined;
  const missing = ensureToolchain();
  if (missing) return missing;
  // GOPATH mode resolves the library's /v4 imports only for code under a go.mod ("minimal module compatibility").
  const pkg = join(outDir, 'gopath', 'src', 'smd-apply-bench');
  mkdirSync(pkg, { recursive: true });
  copyFileSync(source, join(pkg, 'main.go'));
  writeFileSync(join(pkg, 'go.mod'), 'module smd-apply-bench\n\ngo 1.19\n');
  return sh('sh', ['-c', `cd "${pkg}" && go build -o "${binary}" .`], {
    GO111MODULE: 'off',
    GOFLAGS: '',
    GOPATH: [join(outDir, 'gopath'), join(baselineDir, 'gopath'), '/usr/share/gocode'].join(':'),
    GOCACHE: join(outDir, 'gocache'),
  });
}

export interface GoBatch {
  wallNs: number;
  cpuNs: number;
  n: number;
}

export interface GoApplyBench {
  /** Go version, GOMAXPROCS, and the object's JSON size and field-set path count as the library counts them. */
  header: { go: string; gomaxprocs: number; bytes: number; paths: number };
  /** Times `n` applies of the scenario (force: every env value new, force=true; shared: the same object). */
  run(scenario: 'force' | 'shared', n: number): Promise<GoBatch>;
  close(): void;
}

/** Starts the Go side, or says why it cannot run here. */
export async function startGoApplyBench(): Promise<GoApplyBench | { unavailable: string }> {
  const why = ensureBinary();
  if (why) return { unavailable: why };
  const child: ChildProcessWithoutNullStreams = spawn(binary, ['-schema', smdSchemaFile], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async <T>(): Promise<T> => {
    const r = await lines.next();
    if (r.done) throw new Error(`smd-apply-bench exited: ${stderr.trim()}`);
    return JSON.parse(r.value) as T;
  };
  const header = await next<GoApplyBench['header']>();
  return {
    header,
    async run(scenario, n) {
      child.stdin.write(`${scenario} ${n}\n`);
      return next<GoBatch>();
    },
    close() {
      child.stdin.end();
    },
  };
}
