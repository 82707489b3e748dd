/**
 * Runs a scenario against any target that answers Requests: the service
 * worker (the workbench), an in-process core (`run` on the Node host), or a
 * real cluster. Objects are server-side applied (forced, as
 * kubesim-scenario) so a replay starts from the same state; each step is
 * one request whose answer is checked against its expectation.
 */
import { createApiClient, discoverResourceKinds, warningsOf, isProtobufResponse, objectPath, parseApiVersion, protobufBodyProblem, type FetchFn, type KubeObject, type ResourceKind } from '../../api';
import type { Expectation, Identity, RequestStep, Scenario, Step } from './scenario';

export const SCENARIO_FIELD_MANAGER = 'kubesim-scenario';

export interface ScenarioTarget {
  fetch: FetchFn;
  /** Headers that make a request come from this identity (a bearer token naming the user, impersonation...). */
  identify?(identity: Identity): Record<string, string>;
  /** Moves the fake clock (throws with the server's answer when it cannot); absent where there is none. */
  advanceClock?(ms: number): Promise<void>;
  baseUrl?: string;
}

export interface StepResult {
  index: number;
  passed: boolean;
  failures: string[];
  status?: number;
  reason?: string;
  message?: string;
  /** The texts of the answer's Warning headers. */
  warnings?: string[];
  body?: unknown;
}

/** Headers that make a request act as the identity (Impersonate-User, Impersonate-Group), for a runner whose own user may impersonate. */
export function impersonationHeaders(who: Identity): Record<string, string> {
  const headers = new Headers({ 'Impersonate-User': who.user });
  for (const group of who.groups ?? []) headers.append('Impersonate-Group', group);
  return Object.fromEntries(headers.entries());
}

/**
 * Moves a server's fake clock through kubesim's operator endpoint
 * (POST /debug/kubesim/clock?advance=90s, for a member of system:masters):
 * the service worker's, and a Node host's started with --fake-clock.
 */
export function clockAdvancer(fetchFn: FetchFn, baseUrl: string): (ms: number) => Promise<void> {
  return async (ms) => {
    const response = await fetchFn(new Request(new URL(`/debug/kubesim/clock?advance=${ms}ms`, baseUrl), { method: 'POST', headers: { Accept: 'application/json' } }));
    if (response.ok) return;
    const text = await response.text();
    let message = text.trim();
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {
      // not a Status: keep the text
    }
    throw new Error(`${response.status}: ${message}`);
  };
}

/** Applies the scenario's objects in order; the first failure stops the setup with its message. */
export async function applyObjects(scenario: Scenario, target: ScenarioTarget): Promise<{ ok: true } | { ok: false; message: string }> {
  if (scenario.objects.length === 0) return { ok: true };
  const client = createApiClient(target.fetch, target.baseUrl);
  let kinds: ResourceKind[];
  try {
    kinds = await discoverResourceKinds(client);
  } catch (error) {
    return { ok: false, message: `discovery failed: ${error instanceof Error ? error.message : String(error)}` };
  }
  for (const object of scenario.objects as KubeObject[]) {
    const gv = parseApiVersion(object.apiVersion ?? '');
    const kind = kinds.find((k) => k.kind === object.kind && k.group === gv.group && k.version === gv.version);
    const name = object.metadata?.name ?? '';
    if (!kind) return { ok: false, message: `no matches for kind "${object.kind}" in version "${object.apiVersion}"` };
    const namespace = kind.namespaced ? (object.metadata?.namespace ?? 'default') : undefined;
    try {
      await client.write('apply', objectPath(kind, namespace, name), JSON.stringify(object), { fieldManager: SCENARIO_FIELD_MANAGER, force: true });
    } catch (error) {
      return { ok: false, message: `${object.kind} ${name}: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
  return { ok: true };
}

/** Values saved by earlier steps (`save:`), substituted for `$(name)` in later paths, bodies and expectations. */
export type ScenarioVariables = Record<string, string>;

/** `$(name)` replaced by the saved value; an unknown name stays as written, as Kubernetes leaves an unknown $(VAR) in a container's command. */
function expand<T>(value: T, vars: ScenarioVariables): T {
  if (typeof value === 'string') return value.replace(/\$\(([\w.-]+)\)/g, (ref, name: string) => vars[name] ?? ref) as T;
  if (Array.isArray(value)) return value.map((v) => expand(v, vars)) as T;
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v, vars)])) as T;
  return value;
}

/**
 * A watch's answer (one JSON event a line, ended by timeoutSeconds) as the
 * list of its events; undefined when the text is not such a stream.
 */
function watchEvents(text: string): unknown[] | undefined {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 0) return undefined;
  try {
    return lines.map((l) => JSON.parse(l) as unknown);
  } catch {
    return undefined;
  }
}

/** Runs one step and checks its expectation; `vars` carries saved values between steps. */
export async function runStep(step: Step, index: number, target: ScenarioTarget, vars: ScenarioVariables = {}): Promise<StepResult> {
  if (step.kind === 'clock') {
    if (!target.advanceClock) return { index, passed: false, failures: ['this target has no fake clock (settings.fakeClock: true)'] };
    try {
      await target.advanceClock(step.advanceMs);
    } catch (error) {
      return { index, passed: false, failures: [`advancing the clock: ${error instanceof Error ? error.message : String(error)}`] };
    }
    return { index, passed: true, failures: [] };
  }
  // `wait:` repeats the request, as `kubectl wait` polls, until the expectation holds or the time (real time: a
  // controller acts on its own, not when the fake clock moves) is up; the step reports the last answer.
  const deadline = step.waitMs !== undefined ? Date.now() + step.waitMs : 0;
  for (;;) {
    const { result, saved } = await answer(step, index, target, vars);
    if (result.passed || Date.now() + WAIT_INTERVAL_MS > deadline) {
      Object.assign(vars, saved);
      return result;
    }
    await new Promise((resolve) => setTimeout(resolve, WAIT_INTERVAL_MS));
  }
}

/** How often a waiting step asks again (kubectl wait watches; a scenario polls, like `kubectl get` in a loop). */
const WAIT_INTERVAL_MS = 75;

/** One request of a step, checked against its expectation, with the values it would save. */
async function answer(step: RequestStep, index: number, target: ScenarioTarget, vars: ScenarioVariables): Promise<{ result: StepResult; saved: ScenarioVariables }> {
  const response = await target.fetch(buildRequest({ ...step, path: expand(step.path, vars), body: expand(step.body, vars) }, target));
  // The step asked for JSON: a protobuf body is no answer it can check (and without `k8s\0` no protobuf at all).
  if (isProtobufResponse(response)) {
    const problem = protobufBodyProblem(new Uint8Array(await response.arrayBuffer()));
    return { result: { index, passed: false, failures: [`response body: ${problem}`], status: response.status }, saved: {} };
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  // A watch (ended by its timeoutSeconds) reads as the list of its events.
  if (response.ok && /[?&]watch=(1|true)(&|$)/.test(step.path)) body = watchEvents(text) ?? body;
  const status = isRecord(body) && body.kind === 'Status' ? body : undefined;
  const result: StepResult = {
    index,
    passed: true,
    failures: [],
    status: response.status,
    reason: typeof status?.reason === 'string' ? status.reason : undefined,
    message: typeof status?.message === 'string' ? status.message : undefined,
    warnings: warningsOf(response.headers),
    body,
  };
  result.failures = checkExpectation(expand(step.expect, vars), result);
  const saved: ScenarioVariables = {};
  for (const [name, path] of Object.entries(step.save ?? {})) {
    const value = path.split('.').reduce<unknown>((at, key) => (isRecord(at) ? at[key] : Array.isArray(at) ? at[Number(key)] : undefined), body);
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') saved[name] = String(value);
    else result.failures.push(`save.${name}: the answer has no value at ${path}`);
  }
  result.passed = result.failures.length === 0;
  return { result, saved };
}

function buildRequest(step: RequestStep, target: ScenarioTarget): Request {
  const headers: Record<string, string> = { Accept: 'application/json', ...(step.as && target.identify ? target.identify(step.as) : {}) };
  let body: string | undefined;
  if (step.body !== undefined) {
    body = typeof step.body === 'string' ? step.body : JSON.stringify(step.body);
    headers['Content-Type'] = step.contentType ?? (step.method === 'PATCH' ? 'application/merge-patch+json' : 'application/json');
  }
  return new Request(new URL(step.path, target.baseUrl ?? 'http://kubesim.invalid'), { method: step.method, headers, body });
}

export function checkExpectation(expect: Expectation | undefined, result: Pick<StepResult, 'status' | 'reason' | 'message' | 'warnings' | 'body'>): string[] {
  if (!expect) return [];
  const failures: string[] = [];
  if (expect.status !== undefined && expect.status !== result.status) failures.push(`status: expected ${expect.status}, got ${result.status}`);
  if (expect.reason !== undefined && expect.reason !== result.reason) failures.push(`reason: expected ${expect.reason}, got ${result.reason ?? '(none)'}`);
  if (expect.message !== undefined && expect.message !== result.message) failures.push(`message: expected ${JSON.stringify(expect.message)}, got ${JSON.stringify(result.message ?? null)}`);
  if (expect.warnings !== undefined) failures.push(...subsetFailures(expect.warnings, result.warnings ?? [], 'warnings'));
  if (expect.body !== undefined) failures.push(...subsetFailures(expect.body, result.body, 'body'));
  return failures;
}

/** Where `actual` differs from `expected`, reading expected objects as subsets. */
export function subsetFailures(expected: unknown, actual: unknown, path: string): string[] {
  if (isRecord(expected)) {
    if (!isRecord(actual)) return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    return Object.entries(expected).flatMap(([key, value]) => subsetFailures(value, actual[key], `${path}.${key}`));
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected a list, got ${JSON.stringify(actual)}`];
    if (actual.length !== expected.length) return [`${path}: expected ${expected.length} items, got ${actual.length}`];
    return expected.flatMap((value, i) => subsetFailures(value, actual[i], `${path}[${i}]`));
  }
  // null expects the field absent: Kubernetes omits empty fields (omitempty) and reads null as unset.
  if (expected === null) return actual === null || actual === undefined ? [] : [`${path}: expected no value, got ${JSON.stringify(actual)}`];
  return expected === actual ? [] : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual ?? null)}`];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Runs the whole scenario: objects, then every step in order. */
export async function runScenario(scenario: Scenario, target: ScenarioTarget, onStep?: (result: StepResult) => void): Promise<{ setup: Awaited<ReturnType<typeof applyObjects>>; results: StepResult[] }> {
  const setup = await applyObjects(scenario, target);
  const results: StepResult[] = [];
  if (!setup.ok) return { setup, results };
  const vars: ScenarioVariables = {};
  for (const [i, step] of scenario.steps.entries()) {
    const result = await runStep(step, i, target, vars);
    results.push(result);
    onStep?.(result);
  }
  return { setup, results };
}
