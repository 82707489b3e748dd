/**
 * A scenario: a YAML file that sets up a cluster and plays requests against
 * it, each with the answer it expects, so a behaviour (or a bug report) can
 * be replayed in the workbench, headless on the Node host
 * (`npm run serve -- run scenario.yaml`), or in CI.
 *
 *   name: a conflicting apply
 *   description: what the scenario shows and why (optional; the workbench shows it)
 *   settings: { authorizationMode: RBAC, featureGates: { Name: true }, fakeClock: true, simulatedNodes: 2 }
 *   objects: [ ...manifests, applied before the first step... ]
 *   steps:
 *     - name: bob takes the field
 *       as: bob                          # or { user: bob, groups: [dev] }
 *       request: PATCH /api/v1/namespaces/default/configmaps/app?fieldManager=bob
 *       contentType: application/apply-patch+yaml
 *       body: { ... }                    # an object (sent as JSON) or text
 *       expect: { status: 409, reason: Conflict, message: "...", warnings: ["..."], body: { ...subset... } }
 *                                        # in body, `field: null` expects the field absent (omitted or null)
 *       save: { rv: metadata.resourceVersion }   # a value of the answer, for $(rv) in later paths and bodies
 *     - request: GET /apis/apps/v1/namespaces/default/deployments/web
 *       expect: { body: { status: { availableReplicas: 2 } } }
 *       wait: 10s                        # as `kubectl wait --timeout`: repeat the request until the expectation
 *                                        # holds and save: finds its values (controllers act asynchronously), or
 *                                        # the time (real, not the fake clock) is up; the last answer is reported
 *     - advanceClock: 6m                 # moves the fake clock (settings.fakeClock)
 *     - request: GET /api/v1/namespaces/default/configmaps?watch=1&resourceVersion=$(rv)&timeoutSeconds=1
 *       expect: { body: [{ type: MODIFIED }] }   # a watch reads as its events, once timeoutSeconds ends it
 *
 * Pure: no DOM and no Node, so the workbench and the Node host share it.
 */
import { parse } from 'yaml';
import { parseAuthorizationModes } from '../../../core/auth/authorizer/modes';
import { defaultFeatureGates } from '../../../core/features';

/** How the server is built for the scenario: headless, and in the workbench tab (which switches its server to them). */
export interface ScenarioSettings {
  /** --authorization-mode, e.g. `RBAC` or `AlwaysAllow` (the default). */
  authorizationMode?: string;
  /** --feature-gates, by name. */
  featureGates?: Record<string, boolean>;
  /** Run on a fake clock that only `advanceClock` steps move (headless, and the tab's server). */
  fakeClock?: boolean;
  /** kube-controller-manager's --controllers (headless, and the tab's server), e.g. `['*', '-deployment-controller']` to show the raw API. */
  controllers?: string[];
  /** --simulated-nodes (headless, and the tab's server): nodes with kubelets and a scheduler, so pods run. */
  simulatedNodes?: number;
}

export interface Identity {
  user: string;
  groups?: string[];
}

export interface Expectation {
  status?: number;
  reason?: string;
  message?: string;
  /** The texts of the answer's Warning headers (`299 - "text"`), all of them, in order. */
  warnings?: string[];
  /** A subset of the response body: every field given must be equal. */
  body?: unknown;
}

export interface RequestStep {
  kind: 'request';
  name?: string;
  as?: Identity;
  method: string;
  path: string;
  contentType?: string;
  body?: unknown;
  expect?: Expectation;
  /** Variables read from the answer's body by dotted path (`metadata.resourceVersion`), used as `$(name)` by later steps. */
  save?: Record<string, string>;
  /** How long (real time, ms) to repeat the request until its expectation holds, as `kubectl wait --timeout`. */
  waitMs?: number;
}

export interface ClockStep {
  kind: 'clock';
  name?: string;
  advanceMs: number;
}

export type Step = RequestStep | ClockStep;

export interface Scenario {
  name: string;
  /** What the scenario teaches, shown above its steps in the workbench. */
  description?: string;
  settings: ScenarioSettings;
  objects: Record<string, unknown>[];
  steps: Step[];
}

export type ParsedScenario = { ok: true; scenario: Scenario } | { ok: false; errors: string[] };

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `90s`, `6m`, `1h` as milliseconds; undefined when not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  return match ? Number(match[1]) * UNIT_MS[match[2]!]! : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses and checks a scenario, reporting every problem with where it is (`steps[2].request`). */
export function parseScenario(text: string): ParsedScenario {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    return { ok: false, errors: [`YAML: ${error instanceof Error ? error.message : String(error)}`] };
  }
  if (!isRecord(doc)) return { ok: false, errors: ['a scenario is a YAML mapping'] };
  const errors: string[] = [];
  const settings = isRecord(doc.settings) ? (doc.settings as ScenarioSettings) : {};
  if (doc.settings !== undefined && !isRecord(doc.settings)) errors.push('settings: must be a mapping');
  if (isRecord(doc.settings)) errors.push(...settingsErrors(doc.settings));
  const objects = Array.isArray(doc.objects) ? doc.objects : [];
  if (doc.objects !== undefined && !Array.isArray(doc.objects)) errors.push('objects: must be a list');
  objects.forEach((o, i) => {
    if (!isRecord(o) || typeof o.apiVersion !== 'string' || typeof o.kind !== 'string' || !isRecord(o.metadata) || typeof o.metadata.name !== 'string') {
      errors.push(`objects[${i}]: needs apiVersion, kind and metadata.name`);
    }
  });
  const rawSteps = Array.isArray(doc.steps) ? doc.steps : [];
  if (!Array.isArray(doc.steps)) errors.push('steps: must be a list');
  const steps: Step[] = [];
  rawSteps.forEach((raw, i) => {
    const where = `steps[${i}]`;
    if (!isRecord(raw)) return void errors.push(`${where}: must be a mapping`);
    const name = typeof raw.name === 'string' ? raw.name : undefined;
    if (raw.advanceClock !== undefined) {
      const ms = parseDuration(String(raw.advanceClock));
      if (ms === undefined) return void errors.push(`${where}.advanceClock: not a duration like 90s, 6m or 1h`);
      return void steps.push({ kind: 'clock', name, advanceMs: ms });
    }
    const line = typeof raw.request === 'string' ? /^([A-Z]+)\s+(\/\S*)$/.exec(raw.request.trim()) : null;
    if (!line) return void errors.push(`${where}.request: must be "METHOD /path", e.g. "GET /api/v1/namespaces"`);
    let as: Identity | undefined;
    if (typeof raw.as === 'string') as = { user: raw.as };
    else if (isRecord(raw.as) && typeof raw.as.user === 'string') as = { user: raw.as.user, groups: Array.isArray(raw.as.groups) ? raw.as.groups.map(String) : undefined };
    else if (raw.as !== undefined) errors.push(`${where}.as: a user name or { user, groups }`);
    const expect = isRecord(raw.expect) ? (raw.expect as Expectation) : undefined;
    if (raw.expect !== undefined && !expect) errors.push(`${where}.expect: must be a mapping`);
    let save: Record<string, string> | undefined;
    if (raw.save !== undefined) {
      if (isRecord(raw.save) && Object.values(raw.save).every((v) => typeof v === 'string')) save = raw.save as Record<string, string>;
      else errors.push(`${where}.save: a mapping of variable names to paths in the answer, e.g. { rv: metadata.resourceVersion }`);
    }
    let waitMs: number | undefined;
    if (raw.wait !== undefined) {
      waitMs = parseDuration(String(raw.wait));
      if (waitMs === undefined) errors.push(`${where}.wait: not a duration like 500ms, 10s or 1m`);
      else if (!expect) errors.push(`${where}.wait: waits for the expectation to hold, so the step needs an expect`);
    }
    steps.push({
      kind: 'request',
      name,
      as,
      method: line[1]!,
      path: line[2]!,
      contentType: typeof raw.contentType === 'string' ? raw.contentType : undefined,
      body: raw.body,
      expect,
      ...(save ? { save } : {}),
      ...(waitMs !== undefined ? { waitMs } : {}),
    });
  });
  if (doc.description !== undefined && typeof doc.description !== 'string') errors.push('description: must be text');
  if (errors.length > 0) return { ok: false, errors };
  const description = typeof doc.description === 'string' ? doc.description.trim() : undefined;
  return { ok: true, scenario: { name: typeof doc.name === 'string' ? doc.name : 'scenario', ...(description ? { description } : {}), settings, objects: objects as Record<string, unknown>[], steps } };
}

/** The settings' problems, with kube-apiserver's flag messages. */
function settingsErrors(settings: Record<string, unknown>): string[] {
  const errors: string[] = [];
  const { authorizationMode: mode, featureGates: gates, simulatedNodes: nodes } = settings;
  if (nodes !== undefined && !(Number.isInteger(nodes) && (nodes as number) >= 0 && (nodes as number) <= 100)) errors.push('settings.simulatedNodes: a whole number from 0 to 100');
  if (mode !== undefined) {
    if (typeof mode !== 'string') errors.push('settings.authorizationMode: a comma list such as "RBAC" or "Node,RBAC"');
    else {
      try {
        parseAuthorizationModes(mode);
      } catch (error) {
        errors.push(`settings.authorizationMode: ${(error as Error).message}`);
      }
    }
  }
  if (gates !== undefined) {
    if (!isRecord(gates)) errors.push('settings.featureGates: a mapping of gate names to true or false');
    else {
      for (const [name, on] of Object.entries(gates)) {
        if (!(name in defaultFeatureGates)) errors.push(`settings.featureGates: unrecognized feature gate: ${name}`);
        else if (typeof on !== 'boolean') errors.push(`settings.featureGates.${name}: must be true or false`);
      }
    }
  }
  return errors;
}

/** A short line naming a step, as the runner prints it. */
export function describeStep(step: Step, index: number): string {
  const label = step.name ? ` ${step.name}:` : '';
  if (step.kind === 'clock') return `step ${index + 1}:${label} advance the clock ${step.advanceMs}ms`;
  const wait = step.waitMs !== undefined ? ` (waiting up to ${step.waitMs}ms)` : '';
  return `step ${index + 1}:${label} ${step.method} ${step.path}${step.as ? ` as ${step.as.user}` : ''}${wait}`;
}
