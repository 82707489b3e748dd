/**
 * The workbench's panels in real Chromium at 1280x720, driven as a user
 * does: clicks, keyboard and typing. Every request goes through the service
 * worker to the API server in the page's origin.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editorText, openWorkbench, pageRequest, pasteInEditor, workbenchReady, type Workbench } from './support/browser';

let wb: Workbench;
let page: Page;

beforeAll(async () => {
  wb = await openWorkbench();
  page = wb.page;
  await page.goto(wb.baseUrl);
  await workbenchReady(page);
});

afterAll(async () => {
  await wb?.close();
});

const row = (name: string) => page.locator(`[data-testid="resource-row"][data-name="${name}"]`);

describe('Resources panel', () => {
  it('the first screen is interactive without Monaco: no editor code fetched yet', async () => {
    const scripts = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.endsWith('.js')));
    expect(scripts.some((s) => /CodeEditor|editor\.worker|yaml\.worker/.test(s))).toBe(false);
    await page.getByTestId('kind-select').waitFor();
  });

  it('[API-PATH-001] [API-LIST-018] lists kinds from discovery, and filters the list by a label selector', async () => {
    await expect.poll(() => page.getByTestId('kind-select').getAttribute('data-discovered')).toBe('true');
    for (const [name, tier] of [['web-a', 'web'], ['db-a', 'db']]) {
      expect(await pageRequest(page, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { tier } } })).toBe(201);
    }
    await page.getByTestId('kind-select').selectOption('/v1/configmaps');
    await row('web-a').waitFor();
    await row('db-a').waitFor();
    await page.getByTestId('label-selector').fill('tier=web');
    await page.getByTestId('label-selector').press('Enter');
    await expect.poll(() => page.getByTestId('list-meta').textContent()).toContain('matching tier=web');
    await expect.poll(() => row('db-a').count()).toBe(0);
    expect(await row('web-a').count()).toBe(1);
  });

  it('a bad label selector shows the 400 Status message', async () => {
    await page.getByTestId('label-selector').fill('tier in (web');
    await page.getByTestId('label-selector').press('Enter');
    const error = page.getByTestId('list-error');
    await error.waitFor();
    expect(await error.getAttribute('data-reason')).toBe('BadRequest');
    await page.getByTestId('label-selector').fill('');
    await page.getByTestId('label-selector').press('Enter');
    await row('db-a').waitFor();
  });

  it('opens an object as YAML, managedFields hidden as kubectl does', async () => {
    await row('web-a').getByTestId('open-object').click();
    const yaml = page.getByTestId('object-yaml');
    await yaml.waitFor();
    const text = await yaml.textContent();
    expect(text).toContain('name: web-a');
    expect(text).toContain('tier: web');
    expect(text).not.toContain('managedFields');
  });

  it('deletes the object after a confirmation and it leaves the list', async () => {
    await page.getByTestId('delete-button').click();
    await page.getByTestId('delete-confirm').click();
    await expect.poll(() => page.getByTestId('delete-result').textContent()).toBe('configmap "web-a" deleted');
    await expect.poll(() => row('web-a').count()).toBe(0);
  });
});

describe('Editor panel', () => {
  it('Monaco loads when the editor opens, with the schema of the manifest kind from /openapi/v3', async () => {
    await page.getByTestId('tab-editor').click();
    await page.locator('[data-testid="manifest-editor"][data-ready="true"]').waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByTestId('editor-schema').textContent()).toBe('v1/ConfigMap');
  });

  it('completes field names from the schema', async () => {
    await pasteInEditor(page, 'manifest-editor', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typed\n');
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.type('immu');
    await page.keyboard.press('Control+Space');
    const suggestion = page.locator('.suggest-widget .monaco-list-row', { hasText: 'immutable' });
    await suggestion.first().waitFor({ timeout: 15_000 });
    await page.keyboard.press('Enter');
    await expect.poll(() => editorText(page, 'manifest-editor')).toContain('immutable');
  });

  it('validates against the schema: an unknown field is listed as a problem', async () => {
    await pasteInEditor(page, 'manifest-editor', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typed\nbogus: 1\ndata:\n  a: b\n');
    await expect
      .poll(() => page.getByTestId('editor-problem').allTextContents(), { timeout: 15_000 })
      .toEqual(['5:1 Property bogus is not allowed.']);
  });

  it('shows hover documentation from the schema', async () => {
    await page.locator('[data-testid="manifest-editor"] .view-line', { hasText: /^data:/ }).locator('span', { hasText: 'data' }).first().hover();
    const hover = page.locator('.monaco-hover');
    await hover.first().waitFor({ state: 'visible', timeout: 15_000 });
    await expect.poll(() => hover.first().textContent()).toContain('Data contains the configuration data');
  });
});

const result = () => page.getByTestId('write-result').textContent();

describe('Editor writes', () => {
  it('[API-SSA-029] applies server-side as the chosen field manager', async () => {
    await pasteInEditor(page, 'manifest-editor', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e2e-app\ndata:\n  mode: a\n  color: red\n');
    await page.getByTestId('field-manager').fill('alice');
    await page.getByTestId('apply-button').click();
    await expect.poll(result).toBe('configmap/e2e-app serverside-applied');
  });

  it('[API-META-002] creating it again shows the 409 AlreadyExists Status', async () => {
    await page.getByTestId('tab-editor').click();
    await page.getByTestId('create-button').click();
    const error = page.getByTestId('write-error');
    await error.waitFor();
    expect(await error.getAttribute('data-reason')).toBe('AlreadyExists');
    expect(await error.textContent()).toContain('configmaps "e2e-app" already exists');
  });

  it('[API-DRY-003] a dry-run create answers as kubectl does and persists nothing', async () => {
    await pasteInEditor(page, 'manifest-editor', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e2e-dry\n');
    await page.getByTestId('dry-run').check();
    await page.getByTestId('create-button').click();
    await expect.poll(result).toBe('configmap/e2e-dry created (server dry run)');
    await page.getByTestId('dry-run').uncheck();
    expect(await page.evaluate(async () => (await fetch('/api/v1/namespaces/default/configmaps/e2e-dry')).status)).toBe(404);
  });

  it('[API-FV-004] [API-FV-005] [API-FV-002] an unknown field is a warning by default and a 400 with fieldValidation=Strict', async () => {
    await pasteInEditor(page, 'manifest-editor', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e2e-loose\nbogus: 1\n');
    await page.getByTestId('create-button').click();
    await expect.poll(result).toBe('configmap/e2e-loose created');
    await page.getByTestId('tab-editor').click();
    expect(await page.getByTestId('write-warning').first().textContent()).toContain('unknown field "bogus"');
    await pasteInEditor(page, 'manifest-editor', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e2e-strict\nbogus: 1\n');
    await page.getByTestId('field-validation').selectOption('Strict');
    await page.getByTestId('create-button').click();
    const error = page.getByTestId('write-error');
    await error.waitFor();
    expect(await error.getAttribute('data-reason')).toBe('BadRequest');
    expect(await error.textContent()).toContain('unknown field "bogus"');
    await page.getByTestId('field-validation').selectOption('');
  });
});

describe('Ownership panel', () => {
  const field = (path: string) => page.locator(`[data-testid="field"][data-path="${path}"]`);
  const bobApplies = (mode: string) =>
    pageRequest(
      page,
      'PATCH',
      '/api/v1/namespaces/default/configmaps/e2e-app?fieldManager=bob&force=true',
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e2e-app\ndata:\n  mode: ${mode}\n`,
      'application/apply-patch+yaml',
    );
  const aliceAppliesAndConflicts = async (mode: string) => {
    await page.getByTestId('tab-editor').click();
    await pasteInEditor(page, 'manifest-editor', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e2e-app\ndata:\n  mode: ${mode}\n  color: red\n`);
    await page.getByTestId('apply-button').click();
    const error = page.getByTestId('write-error');
    await error.waitFor();
    expect(await error.getAttribute('data-reason')).toBe('Conflict');
    expect(await error.textContent()).toContain('Apply failed with 1 conflict: conflict with "bob": .data.mode');
    await page.getByTestId('resolve-conflicts').click();
    await page.getByTestId('conflicts').waitFor();
  };

  it('colours each field by its manager, hover shows manager, operation and time', async () => {
    await page.getByTestId('tab-resources').click();
    await row('e2e-app').getByTestId('open-object').click();
    await page.getByTestId('show-ownership').click();
    await field('.data.color').waitFor();
    expect(await field('.data.color').getAttribute('data-owners')).toBe('alice');
    expect(await field('.data.color').locator('.field-label').first().getAttribute('title')).toMatch(/^alice \(Apply, v1, \d{4}-\d\d-\d\dT/);
    expect(await page.getByTestId('manager').evaluateAll((els) => els.map((e) => e.getAttribute('data-manager')))).toEqual(['alice']);
  });

  it('[API-SSA-049] [API-SSA-063] [API-SSA-053] after a conflicting apply shows both values; adopting the live value shares the field', async () => {
    expect(await bobApplies('b')).toBe(200);
    await aliceAppliesAndConflicts('a');
    const conflicting = field('.data.mode');
    expect(await conflicting.getAttribute('class')).toContain('conflict');
    await expect.poll(() => conflicting.getByTestId('conflict-values').textContent()).toContain('mine: "a" live: "b"');
    await page.getByTestId('resolve-adopt').click();
    await expect.poll(() => page.getByTestId('resolve-result').textContent()).toBe('configmap/e2e-app serverside-applied');
    await expect.poll(() => field('.data.mode').getAttribute('data-owners')).toBe('alice,bob');
    expect(await field('.data.mode').getAttribute('class')).toContain('shared');
  });

  it('[API-SSA-062] dropping the field from my manifest leaves it to the other manager', async () => {
    expect(await bobApplies('c')).toBe(200);
    await aliceAppliesAndConflicts('a');
    await page.getByTestId('resolve-drop').click();
    await expect.poll(() => page.getByTestId('resolve-result').textContent()).toBe('configmap/e2e-app serverside-applied');
    await expect.poll(() => field('.data.mode').getAttribute('data-owners')).toBe('bob');
    expect(await field('.data.color').getAttribute('data-owners')).toBe('alice');
  });

  it('[API-SSA-061] [API-SSA-050] forcing takes the field over', async () => {
    expect(await bobApplies('d')).toBe(200);
    await aliceAppliesAndConflicts('z');
    await page.getByTestId('resolve-force').click();
    await expect.poll(() => page.getByTestId('resolve-result').textContent()).toBe('configmap/e2e-app serverside-applied');
    await expect.poll(() => field('.data.mode').getAttribute('data-owners')).toBe('alice');
    expect(await field('.data.mode').textContent()).toContain('"z"');
  });
});

describe('Watch panel', () => {
  const counts = () => page.getByTestId('watch-counts').textContent();

  it('[API-WATCH-029] queues events, steps one at a time with type, resourceVersion and a diff, and keeps a timeline', async () => {
    await page.getByTestId('tab-watch').click();
    await page.getByTestId('watch-kind').selectOption('/v1/configmaps');
    const listed = await page.evaluate(async () => ((await (await fetch('/api/v1/namespaces/default/configmaps')).json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
    await page.getByTestId('watch-rv').fill(listed);
    await page.getByTestId('watch-open').click();
    await expect.poll(() => page.getByTestId('watch-state').textContent()).toBe('open');
    expect(await page.getByTestId('watch-request').textContent()).toBe(`GET /api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${listed}&allowWatchBookmarks=true`);
    expect(await pageRequest(page, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stepped' }, data: { v: '1' } })).toBe(201);
    expect(await pageRequest(page, 'PUT', '/api/v1/namespaces/default/configmaps/stepped', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stepped' }, data: { v: '2' } })).toBe(200);
    await expect.poll(counts).toBe('0 applied, 2 queued');
    await page.getByTestId('watch-step').click();
    expect(await counts()).toBe('1 applied, 1 queued');
    expect(await page.getByTestId('event-type').textContent()).toBe('ADDED');
    expect(await page.getByTestId('event-name').textContent()).toBe('stepped');
    await page.getByTestId('watch-step').click();
    expect(await page.getByTestId('event-type').textContent()).toBe('MODIFIED');
    const diff = await page.getByTestId('event-diff').locator('span.removed, span.added').allTextContents();
    expect(diff.map((l) => l.replace(/\s+/g, ' ').trim())).toEqual(expect.arrayContaining(['- v: "1"', '+ v: "2"']));
    const timeline = page.getByTestId('timeline-event');
    expect(await timeline.evaluateAll((els) => els.map((e) => e.getAttribute('data-type')))).toEqual(['ADDED', 'MODIFIED']);
    // Going back in the timeline shows that event again.
    await timeline.first().click();
    expect(await page.getByTestId('event-type').textContent()).toBe('ADDED');
    await page.getByTestId('watch-close').click();
  });

  it('[API-WATCH-029] [API-ERR-010] a watch from a compacted resourceVersion ends with 410 Expired; relisting resumes it', async () => {
    // A profile whose worker keeps one second of watch history, so a resourceVersion expires quickly.
    const other = await wb.openProfile({ 'kubesim.watchHistoryWindow': '1s' });
    const p = other.page;
    await p.goto(wb.baseUrl);
    await workbenchReady(p);
    const request = (method: string, path: string, body?: unknown) =>
      p.evaluate(
        async ({ method, path, body }) => (await fetch(path, { method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })).status,
        { method, path, body },
      );
    expect(await request('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'first' } })).toBe(201);
    const stale = await p.evaluate(async () => ((await (await fetch('/api/v1/namespaces/default/configmaps')).json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
    let n = 0;
    // Writes move the history on; once the window has passed, an exact read at the stale version is 410.
    await expect
      .poll(
        async () => {
          await request('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `later-${n++}` } });
          return request('GET', `/api/v1/namespaces/default/configmaps?resourceVersion=${stale}&resourceVersionMatch=Exact`);
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe(410);
    await p.getByTestId('tab-watch').click();
    await p.getByTestId('watch-kind').selectOption('/v1/configmaps');
    await p.getByTestId('watch-rv').fill(stale);
    await p.getByTestId('watch-open').click();
    const failure = p.getByTestId('watch-failure');
    await failure.waitFor();
    expect(await p.getByTestId('watch-status').getAttribute('data-reason')).toBe('Expired');
    expect(await failure.textContent()).toContain(`410 Expiredtoo old resource version: ${stale} (`);
    await p.getByTestId('watch-relist').click();
    // first, later-0..n-1 and the kube-root-ca.crt ConfigMap the root CA publisher keeps in every namespace.
    await expect.poll(() => p.getByTestId('watch-relisted').textContent()).toMatch(new RegExp(`^Relisted ${n + 2} objects at resourceVersion \\d+; watching from there\\.$`));
    expect(await request('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-relist' } })).toBe(201);
    await expect.poll(() => p.getByTestId('watch-counts').textContent()).toBe('0 applied, 1 queued');
    expect(other.errors, other.errors.join('\n')).toEqual([]);
  });
});

describe('CEL lab', () => {
  it('an example per library evaluates live: value, type, cost and estimated cost', async () => {
    await page.getByTestId('tab-cel').click();
    await page.getByTestId('cel-example').selectOption({ label: 'quantity' });
    await expect.poll(() => page.getByTestId('cel-value').textContent()).toBe('true');
    expect(await page.getByTestId('cel-type').textContent()).toBe('bool');
    expect(Number(await page.getByTestId('cel-cost').textContent())).toBeGreaterThan(0);
    expect(await page.getByTestId('cel-estimated').textContent()).toMatch(/^\d+–\d+$/);
    expect(await page.getByTestId('cel-limit').first().textContent()).toMatch(/^runtime cost \d+ within PerCallLimit 1000000$/);
  });

  it('a CRD rule is checked against the schema of self and evaluated with the variables typed in', async () => {
    await page.getByTestId('cel-example').selectOption({ label: 'CRD rule (self, oldSelf)' });
    expect(await page.getByTestId('cel-environment').inputValue()).toBe('crd');
    await expect.poll(() => page.getByTestId('cel-value').textContent()).toBe('true');
    await pasteInEditor(page, 'cel-variables', 'self:\n  replicas: 9\n  maxReplicas: 5\n');
    await expect.poll(() => page.getByTestId('cel-value').textContent()).toBe('false');
  });

  it('errors are marked at their position in the expression editor', async () => {
    await page.getByTestId('cel-environment').selectOption('plain');
    await pasteInEditor(page, 'cel-expression', "'abc'.size() +\n  nope");
    await expect.poll(() => page.getByTestId('cel-marker').allTextContents()).toEqual(["2:3 undeclared reference to 'nope' (in container '')"]);
    expect(await page.getByTestId('cel-error').textContent()).toContain('ERROR: <input>:2:3:');
    await page.locator('[data-testid="cel-expression"] .squiggly-error').first().waitFor();
  });
});

describe('RBAC lab', () => {
  it('[AC-RBAC-006] [AC-REV-023] a matrix for the subject, the binding, role and rule behind a cell, and who can', async () => {
    const rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/default';
    expect(await pageRequest(page, 'POST', `${rbac}/roles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] })).toBe(201);
    expect(
      await pageRequest(page, 'POST', `${rbac}/rolebindings`, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'readers' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
      }),
    ).toBe(201);
    await page.getByTestId('tab-rbac').click();
    await page.getByTestId('rbac-subject-name').fill('alice');
    const cell = (verb: string, resource: string) => page.locator(`[data-testid="rbac-cell"][data-verb="${verb}"][data-resource="${resource}"]`);
    await expect.poll(() => cell('list', 'configmaps').getAttribute('data-allowed')).toBe('true');
    expect(await cell('delete', 'configmaps').getAttribute('data-allowed')).toBe('false');
    expect(await cell('get', 'secrets').getAttribute('data-allowed')).toBe('false');
    await cell('list', 'configmaps').click();
    expect(await page.getByTestId('rbac-grant').first().textContent()).toBe(
      'RoleBinding default/readers binds Role default/cm-reader; its rule #1 allows: verbs [get, list] on resources [configmaps] in apiGroups [""]',
    );
    await page.getByTestId('rbac-server').waitFor();
    await cell('get', 'secrets').click();
    expect(await page.getByTestId('rbac-no-grant').textContent()).toContain('No RoleBinding in default and no ClusterRoleBinding binds User alice');
    await page.getByTestId('rbac-who-verb').selectOption('get');
    await page.getByTestId('rbac-who-resource').selectOption('/v1/configmaps');
    await page.locator('[data-testid="rbac-who-subject"][data-name="alice"]').waitFor();
  });
});

describe('Scenarios panel', () => {
  const summary = () => page.getByTestId('scenario-summary').textContent();

  it('[API-SSA-049] replays the example scenario: objects applied, each step checked', async () => {
    await page.getByTestId('tab-scenarios').click();
    // The first run adds the scenario identity to the tab's server: the page reloads and the run resumes.
    await Promise.all([page.waitForEvent('load'), page.getByTestId('scenario-replay').click()]);
    await workbenchReady(page);
    await expect.poll(summary, { timeout: 30_000 }).toBe('2 passed, 0 failed, 0 to run');
    expect(await page.getByTestId('scenario-settings-applied').textContent()).toContain('the scenario identity kubesim-scenario-admin (system:masters) in the token table');
    expect(await page.getByTestId('scenario-result').first().textContent()).toBe(
      'PASS step 1: another manager applies a different value: PATCH /api/v1/namespaces/default/configmaps/scenario-app?fieldManager=bob -> 409 Conflict',
    );
  });

  it('steps through one request at a time, and shows a failed expectation', async () => {
    await pasteInEditor(
      page,
      'scenario-editor',
      'name: shared one\nsteps:\n  - request: GET /api/v1/namespaces/default\n    expect: { status: 200 }\n  - request: GET /api/v1/namespaces/nowhere\n    expect: { status: 200 }\n',
    );
    await page.getByTestId('scenario-step').click();
    await expect.poll(summary).toBe('1 passed, 0 failed, 1 to run');
    await page.getByTestId('scenario-step').click();
    await expect.poll(summary).toBe('1 passed, 1 failed, 0 to run');
    const failed = page.locator('[data-testid="scenario-result"][data-passed="false"]');
    expect(await failed.textContent()).toContain('status: expected 200, got 404');
  });

  it('downloads the scenario as a file', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('scenario-download').click()]);
    expect(download.suggestedFilename()).toBe('shared-one.yaml');
    const stream = await download.createReadStream();
    let text = '';
    for await (const chunk of stream) text += String(chunk);
    expect(text).toContain('name: shared one');
  });

  it('shares the scenario as a link whose fragment opens it in another tab', async () => {
    await page.getByTestId('scenario-share').click();
    const link = await page.getByTestId('scenario-link').inputValue();
    expect(link).toMatch(/#scenario=[A-Za-z0-9_-]+$/);
    const other = await wb.context.newPage();
    await other.goto(link);
    await workbenchReady(other);
    await expect.poll(() => other.locator('#scenario-heading').textContent()).toBe('Scenario: shared one');
    await other.close();
  });
});

describe("Scenario settings on the tab's server", () => {
  it("[AC-AUTHZ-001] [AC-AUTHN-001] replaying sets the tab's server to the scenario's authorization mode and feature gates (over one reload), says so, and runs as: users by impersonation", async () => {
    const other = await wb.openProfile();
    const p = other.page;
    await p.goto(wb.baseUrl);
    await workbenchReady(p);
    await p.getByTestId('tab-scenarios').click();
    await pasteInEditor(
      p,
      'scenario-editor',
      [
        'name: rbac and gates',
        'settings: { authorizationMode: RBAC, featureGates: { AllowUnsafeMalformedObjectDeletion: true } }',
        'objects:',
        '  - { apiVersion: v1, kind: ConfigMap, metadata: { name: readable, namespace: default } }',
        'steps:',
        '  - as: alice',
        '    request: GET /api/v1/namespaces/default/configmaps',
        '    expect: { status: 403, reason: Forbidden, message: \'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"\' }',
        '  - request: DELETE /api/v1/namespaces/default/configmaps/readable',
        '    body: { apiVersion: v1, kind: DeleteOptions, ignoreStoreReadErrorWithClusterBreakingPotential: true }',
        '    expect: { status: 422, reason: Invalid }',
        '',
      ].join('\n'),
    );
    expect(await p.getByTestId('scenario-settings-note').textContent()).toContain('authorization mode RBAC (was AlwaysAllow (the default))');
    await Promise.all([p.waitForEvent('load'), p.getByTestId('scenario-replay').click()]);
    await workbenchReady(p);
    await expect.poll(() => p.getByTestId('scenario-summary').textContent(), { timeout: 30_000 }).toBe('2 passed, 0 failed, 0 to run');
    const applied = await p.getByTestId('scenario-settings-applied').textContent();
    expect(applied).toContain('authorization mode RBAC (was AlwaysAllow (the default))');
    expect(applied).toContain('feature gates AllowUnsafeMalformedObjectDeletion=true (was the defaults)');
    expect(await p.getByTestId('scenario-settings-note').count()).toBe(0);
    // A new worker took over with the settings on its script URL.
    const scriptUrl = new URL(await p.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? ''));
    expect(scriptUrl.searchParams.get('authorizationMode')).toBe('RBAC');
    expect(scriptUrl.searchParams.get('featureGates')).toBe('AllowUnsafeMalformedObjectDeletion=true');
    // The page itself is anonymous, and RBAC now decides for it too.
    const anonymous = await p.evaluate(async () => {
      const r = await fetch('/api/v1/namespaces/default/configmaps');
      return { status: r.status, message: ((await r.json()) as { message: string }).message };
    });
    expect(anonymous).toEqual({ status: 403, message: 'configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "default"' });
    // The steps are in the Trace panel: alice's request was impersonated by the scenario identity and denied by RBAC.
    await p.getByTestId('tab-trace').click();
    await p.locator('[data-testid="trace-request"]', { hasText: /^403 GET \/api\/v1\/namespaces\/default\/configmaps$/ }).first().click();
    const stages = await p.getByTestId('trace-entry').evaluateAll((els) => els.map((e) => e.getAttribute('data-stage')));
    expect(stages).toEqual(expect.arrayContaining(['authentication', 'impersonation', 'authorization']));
    expect(await p.getByTestId('trace-detail').textContent()).toContain('kubesim-scenario-admin is acting as alice');
    // The Access panel shows the tab's server as the scenario left it.
    await p.getByTestId('tab-access').click();
    expect(await p.getByTestId('access-mode').inputValue()).toBe('RBAC');
    expect(await p.getByTestId('access-gates').textContent()).toContain('AllowUnsafeMalformedObjectDeletion=true');
    await p.getByTestId('tab-scenarios').click();

    // A scenario without settings puts the defaults back.
    await pasteInEditor(p, 'scenario-editor', 'name: defaults\nsteps:\n  - request: GET /api/v1/namespaces/default/configmaps\n    expect: { status: 200 }\n');
    await Promise.all([p.waitForEvent('load'), p.getByTestId('scenario-replay').click()]);
    await workbenchReady(p);
    await expect.poll(() => p.getByTestId('scenario-summary').textContent(), { timeout: 30_000 }).toBe('1 passed, 0 failed, 0 to run');
    expect(await p.getByTestId('scenario-settings-applied').textContent()).toContain('authorization mode AlwaysAllow (the default) (was RBAC)');
    expect(await p.evaluate(async () => (await fetch('/api/v1/namespaces/default/configmaps')).status)).toBe(200);
    expect(other.errors, other.errors.join('\n')).toEqual([]);
  });
});

describe("A scenario's fake clock and controllers on the tab's server", () => {
  it("[API-ERR-010] settings.fakeClock and settings.controllers switch the tab's server (over one reload); advanceClock steps move its clock: an old resourceVersion becomes 410 Expired", async () => {
    const other = await wb.openProfile();
    const p = other.page;
    await p.goto(wb.baseUrl);
    await workbenchReady(p);
    await p.getByTestId('tab-scenarios').click();
    await pasteInEditor(
      p,
      'scenario-editor',
      [
        'name: history expires',
        "settings: { fakeClock: true, controllers: ['*', '-deployment-controller'] }",
        'objects:',
        '  - { apiVersion: v1, kind: ConfigMap, metadata: { name: clocked, namespace: default } }',
        'steps:',
        '  - request: GET /api/v1/namespaces/default/configmaps/clocked',
        '    expect: { status: 200 }',
        '  - advanceClock: 6m',
        '  - request: POST /api/v1/namespaces/default/configmaps',
        '    body: { apiVersion: v1, kind: ConfigMap, metadata: { name: after-the-window } }',
        '    expect: { status: 201 }',
        '  - request: GET /api/v1/namespaces/default/configmaps?resourceVersion=1&resourceVersionMatch=Exact',
        '    expect: { status: 410, reason: Expired }',
        '',
      ].join('\n'),
    );
    const note = await p.getByTestId('scenario-settings-note').textContent();
    expect(note).toContain('controllers *,-deployment-controller (was the defaults)');
    expect(note).toContain('a fake clock, from the real time when the server starts (was the real clock)');
    expect(await p.getByTestId('scenario-clock-note').textContent()).toContain("advanceClock steps move this tab's server time");
    await Promise.all([p.waitForEvent('load'), p.getByTestId('scenario-replay').click()]);
    await workbenchReady(p);
    await expect.poll(() => p.getByTestId('scenario-summary').textContent(), { timeout: 30_000 }).toBe('4 passed, 0 failed, 0 to run');
    expect(await p.getByTestId('scenario-result').nth(1).textContent()).toBe('PASS step 2: advance the clock 360000ms');
    const scriptUrl = new URL(await p.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? ''));
    expect(scriptUrl.searchParams.get('fakeClock')).toBe('true');
    expect(scriptUrl.searchParams.get('controllers')).toBe('*,-deployment-controller');
    expect(other.errors, other.errors.join('\n')).toEqual([]);
  });
});

describe('Trace panel', () => {
  it("lists the workbench's requests with the server's trace of each: authentication and the authorization decision", async () => {
    await page.getByTestId('tab-trace').click();
    const request = page.locator('[data-testid="trace-request"]', { hasText: /^200 GET \/api\/v1\/namespaces$/ }).first();
    await request.click();
    const stages = await page.getByTestId('trace-entry').evaluateAll((els) => els.map((e) => e.getAttribute('data-stage')));
    expect(stages).toEqual(expect.arrayContaining(['authentication', 'authorization']));
    expect(await page.getByTestId('trace-detail').textContent()).toContain('GET /api/v1/namespaces → 200');
  });
});

describe('Trace panel: field manager and storage', () => {
  const traced = (pattern: RegExp) => page.locator('[data-testid="trace-request"]', { hasText: pattern }).first();

  it('[API-SSA-049] [API-SSA-050] [API-META-015] an apply shows the manager, the fields it took, and the key with the resourceVersion before and after; a conflict shows the fields', async () => {
    await page.getByTestId('tab-editor').click();
    await page.getByTestId('field-manager').fill('trace-alice');
    await pasteInEditor(page, 'manifest-editor', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e2e-trace\ndata:\n  mode: a\n');
    await page.getByTestId('apply-button').click();
    await expect.poll(result).toBe('configmap/e2e-trace serverside-applied');
    await page.getByTestId('field-manager').fill('trace-bob');
    await pasteInEditor(page, 'manifest-editor', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e2e-trace\ndata:\n  mode: b\n');
    await page.getByTestId('apply-button').click();
    await page.getByTestId('write-error').waitFor();
    await page.getByTestId('force').check();
    await page.getByTestId('apply-button').click();
    await expect.poll(result).toBe('configmap/e2e-trace serverside-applied');
    await page.getByTestId('force').uncheck();

    await page.getByTestId('tab-trace').click();
    const detail = page.getByTestId('trace-detail');
    // The create: alice owns .data.mode; the object is stored under its key at a first resourceVersion.
    await traced(/^201 PATCH .*e2e-trace\?.*fieldManager=trace-alice/).click();
    const aliceChange = detail.locator('[data-testid="trace-field-change"][data-manager="trace-alice"]');
    expect(await aliceChange.getAttribute('data-operation')).toBe('Apply');
    expect(await aliceChange.getByTestId('trace-gained').allTextContents()).toEqual(['+ .data.mode']);
    const created = detail.getByTestId('trace-storage');
    expect(await created.getAttribute('data-key')).toBe('/registry/configmaps/default/e2e-trace');
    expect(await created.getAttribute('data-before')).toBe('');
    const rv1 = await created.getAttribute('data-after');
    expect(rv1).toMatch(/^\d+$/);

    // The refused apply: the conflicting field and its owner, and no storage write.
    await traced(/^409 PATCH .*e2e-trace\?.*fieldManager=trace-bob/).click();
    expect(await detail.getByTestId('trace-conflict').getAttribute('data-field')).toBe('.data.mode');
    expect(await detail.getByTestId('trace-conflict').textContent()).toContain('conflict with "trace-alice"');
    expect(await detail.getByTestId('trace-storage').count()).toBe(0);

    // The forced apply: bob took the field alice lost; the write moved the resourceVersion on from the first.
    await traced(/^200 PATCH .*e2e-trace\?.*fieldManager=trace-bob.*force=true|^200 PATCH .*e2e-trace\?.*force=true.*fieldManager=trace-bob/).click();
    expect(await detail.locator('[data-testid="trace-field-change"][data-manager="trace-bob"]').getByTestId('trace-gained').allTextContents()).toEqual(['+ .data.mode']);
    expect(await detail.locator('[data-testid="trace-field-change"][data-manager="trace-alice"]').getByTestId('trace-lost').allTextContents()).toEqual(['− .data.mode']);
    const updated = detail.getByTestId('trace-storage');
    expect(await updated.getAttribute('data-before')).toBe(rv1);
    expect(await updated.getAttribute('data-after')).not.toBe(rv1);
    expect(await updated.textContent()).toContain(`${rv1} → `);
  });
});

describe('Access panel', () => {
  it('[AC-AUTHN-001] [AC-AUTHZ-001] a token table and RBAC in the tab: acting as a user without a binding shows kube\'s 403; as a master the list opens', async () => {
    const other = await wb.openProfile();
    const p = other.page;
    await p.goto(wb.baseUrl);
    await workbenchReady(p);
    await p.getByTestId('tab-access').click();
    await p.getByTestId('access-tokens').fill('admin-token,admin,1,system:masters\nalice-token,alice,2,"developers"\n');
    await p.getByTestId('access-mode').selectOption('RBAC');
    await p.getByTestId('access-as').selectOption({ label: 'alice' });
    await Promise.all([p.waitForEvent('load'), p.getByTestId('access-apply').click()]);
    await workbenchReady(p);
    await expect.poll(() => p.getByTestId('kind-select').getAttribute('data-discovered'), { timeout: 30_000 }).toBe('true');
    await p.getByTestId('kind-select').selectOption('/v1/configmaps');
    await expect
      .poll(() => p.getByTestId('list-error').textContent(), { timeout: 30_000 })
      .toContain('configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"');
    await p.getByTestId('tab-access').click();
    expect(await p.getByTestId('access-mode').inputValue()).toBe('RBAC');
    await p.getByTestId('access-as').selectOption({ label: 'admin' });
    await Promise.all([p.waitForEvent('load'), p.getByTestId('access-apply').click()]);
    await workbenchReady(p);
    await p.getByTestId('kind-select').selectOption('/v1/configmaps');
    await p.getByTestId('list-meta').waitFor({ timeout: 30_000 });
    expect(await p.getByTestId('list-error').count()).toBe(0);
    expect(other.errors, other.errors.join('\n')).toEqual([]);
  });
});

describe('simulated nodes', () => {
  it('the Access panel switches the tab\'s server to two simulated nodes: they are listed and a pod is bound and runs', async () => {
    const other = await wb.openProfile();
    const p = other.page;
    await p.goto(wb.baseUrl);
    await workbenchReady(p);
    await p.getByTestId('tab-access').click();
    await p.getByTestId('access-nodes').selectOption('2');
    await Promise.all([p.waitForEvent('load'), p.getByTestId('access-apply').click()]);
    await workbenchReady(p);
    await expect.poll(() => p.getByTestId('kind-select').getAttribute('data-discovered'), { timeout: 30_000 }).toBe('true');
    await p.getByTestId('kind-select').selectOption('/v1/nodes');
    await expect.poll(() => p.locator('[data-testid="resource-row"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name'))), { timeout: 30_000 }).toEqual(['node-1', 'node-2']);
    // A pod created through the API is scheduled and run by the worker's simulated kubelet.
    const pod = await p.evaluate(async () => {
      await fetch('/api/v1/namespaces/default/pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'sim-web' }, spec: { containers: [{ name: 'web', image: 'nginx' }] } }) });
      for (let i = 0; i < 200; i++) {
        const got = await (await fetch('/api/v1/namespaces/default/pods/sim-web')).json();
        if (got.status?.phase === 'Running') return { node: got.spec.nodeName, ip: got.status.podIP };
        await new Promise((r) => setTimeout(r, 50));
      }
      return undefined;
    });
    expect(pod?.node).toMatch(/^node-[12]$/);
    expect(pod?.ip).toMatch(/^10\.244\.[12]\.\d+$/);
    // The list shows the server's columns for pods, as kubectl get does; -o wide adds the node and IP.
    await p.getByTestId('kind-select').selectOption('/v1/pods');
    const simRow = p.locator('[data-testid="resource-row"][data-name="sim-web"]');
    await expect.poll(() => simRow.locator('td[data-column="Status"]').textContent(), { timeout: 30_000 }).toBe('Running');
    expect(await p.getByTestId('list-column').allTextContents()).toEqual(['Ready', 'Status', 'Restarts']);
    expect(await simRow.locator('td[data-column="Ready"]').textContent()).toBe('1/1');
    await p.getByTestId('list-wide').check();
    expect(await p.getByTestId('list-column').allTextContents()).toEqual(['Ready', 'Status', 'Restarts', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    expect(await simRow.locator('td[data-column="Node"]').textContent()).toBe(pod?.node);
    expect(await simRow.locator('td[data-column="IP"]').textContent()).toBe(pod?.ip);
    await p.getByTestId('tab-access').click();
    expect(await p.getByTestId('access-nodes').inputValue()).toBe('2');
    expect(other.errors, other.errors.join('\n')).toEqual([]);
  });
});

describe('quality', () => {
  it('the panels are reachable by keyboard: arrow keys move between tabs', async () => {
    await page.getByTestId('tab-resources').click();
    await page.keyboard.press('ArrowRight');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('tab-editor');
    expect(await page.getByTestId('tab-editor').getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowLeft');
    expect(await page.getByTestId('tab-resources').getAttribute('aria-selected')).toBe('true');
  });

  it('fits 1280x720 without horizontal scrolling', async () => {
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
  });

  it('every panel, the scenario and trace ones included, fits 1280 wide when reached by keyboard', async () => {
    const panels: [string, string][] = [['editor', 'editor-panel'], ['ownership', 'ownership-panel'], ['watch', 'watch-panel'], ['cel', 'cel-panel'], ['rbac', 'rbac-panel'], ['network', 'network-panel'], ['scenarios', 'scenario-panel'], ['trace', 'trace-panel'], ['access', 'access-panel']];
    await page.getByTestId('tab-resources').click();
    for (const [tab, panel] of panels) {
      await page.keyboard.press('ArrowRight');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(`tab-${tab}`);
      await page.getByTestId(panel).first().waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth), panel).toBeLessThanOrEqual(1280);
    }
    await page.getByTestId('tab-resources').click();
  });

  it('no console errors or page errors during the suite', () => {
    expect(wb.errors, wb.errors.join('\n')).toEqual([]);
  });
});

describe('Upgrade check panel', () => {
  it('checks manifests for removed apiVersions and offers the converted manifest', async () => {
    await page.getByTestId('tab-upgrade').click();
    await page.getByTestId('upgrade-run').click();
    await page.getByTestId('upgrade-report').waitFor({ timeout: 30_000 });
    const rows = await page.getByTestId('upgrade-row').allTextContents();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('Ingress');
    expect(rows[0]).toContain('removed in 1.22');
    expect(rows[0]).toContain('networking.k8s.io/v1');
    expect(rows[0]).toContain('backend serviceName is renamed service.name');
    expect(rows[1]).toContain('removed in 1.25');
    const converted = await page.getByTestId('upgrade-converted').textContent();
    expect(converted).toContain('apiVersion: networking.k8s.io/v1\n');
    expect(converted).toContain('apiVersion: batch/v1\n');
    // An earlier target release: the CronJob's batch/v1beta1 is still served there.
    await page.getByTestId('upgrade-target').fill('1.24');
    await page.getByTestId('upgrade-run').click();
    await expect.poll(async () => (await page.getByTestId('upgrade-row').allTextContents())[1]).toContain('will be removed in 1.25');
  });
});
