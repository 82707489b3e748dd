/**
 * The Lessons list in the Scenario panel, in real Chromium: a lesson bundled
 * from scenarios/ opens in the panel with its description, and replaying it
 * (which switches the tab's server to the lesson's settings over one reload)
 * passes every step against the service worker's API server.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editorText, openWorkbench, root, workbenchReady, type Workbench } from './support/browser';

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

describe('Lessons in the Scenario panel', () => {
  it('[AC-AUTHZ-001] lists the shipped lessons, opens rbac-basics with its description, and replays it to every step passing', async () => {
    await page.getByTestId('tab-scenarios').click();
    await page.getByTestId('scenario-lessons').waitFor();
    const options = await page.getByTestId('scenario-lessons').locator('option').allTextContents();
    expect(options).toContain('rbac-basics');
    expect(options).toContain('server-side-apply-conflicts');
    await page.getByTestId('scenario-lessons').selectOption('rbac-basics');
    await expect.poll(() => page.locator('#scenario-heading').textContent()).toBe('Scenario: rbac-basics');
    // The editor holds the file as shipped (its first lines are rendered).
    const shipped = readFileSync(join(root, 'scenarios/rbac-basics.yaml'), 'utf8').split('\n');
    await expect.poll(() => editorText(page, 'scenario-editor').then((t) => t.split('\n').slice(0, 3))).toEqual(shipped.slice(0, 3));
    expect(await page.getByTestId('scenario-description').textContent()).toContain('RBAC grants permissions only');
    // The lesson runs under RBAC: the tab's server switches over one reload, and the run resumes.
    await Promise.all([page.waitForEvent('load'), page.getByTestId('scenario-replay').click()]);
    await workbenchReady(page);
    await expect.poll(() => page.getByTestId('scenario-summary').textContent(), { timeout: 60_000 }).toBe('9 passed, 0 failed, 0 to run');
    expect(await page.getByTestId('scenario-result').nth(6).textContent()).toBe(
      'PASS step 7: alice may create RoleBindings, but binding secret-reader would grant what she does not hold: POST /apis/rbac.authorization.k8s.io/v1/namespaces/lesson-rbac/rolebindings as alice -> 403 Forbidden',
    );
  });
});

describe('A lesson whose steps save values', () => {
  it('[API-ERR-002] optimistic-concurrency passes every step: resourceVersions saved by one step are sent by the next', async () => {
    await page.getByTestId('scenario-lessons').selectOption('optimistic-concurrency');
    await expect.poll(() => page.locator('#scenario-heading').textContent()).toBe('Scenario: optimistic-concurrency');
    // Its settings are the defaults: the tab's server switches back from RBAC over one reload.
    await Promise.all([page.waitForEvent('load'), page.getByTestId('scenario-replay').click()]);
    await workbenchReady(page);
    await expect.poll(() => page.getByTestId('scenario-summary').textContent(), { timeout: 60_000 }).toBe('10 passed, 0 failed, 0 to run');
    expect(await page.getByTestId('scenario-result').nth(4).textContent()).toBe(
      'PASS step 5: a second writer still holding the first resourceVersion is refused; its read is stale now: PUT /api/v1/namespaces/lesson-occ/configmaps/counter -> 409 Conflict',
    );
  });
});

describe('A lesson that reads a watch', () => {
  it('[API-RV-001] watch-and-resource-versions passes every step: the worker ends each watch at its timeoutSeconds and the step reads its events', async () => {
    await page.getByTestId('scenario-lessons').selectOption('watch-and-resource-versions');
    await expect.poll(() => page.locator('#scenario-heading').textContent()).toBe('Scenario: watch-and-resource-versions');
    await page.getByTestId('scenario-replay').click();
    await expect.poll(() => page.getByTestId('scenario-summary').textContent(), { timeout: 60_000 }).toBe('7 passed, 0 failed, 0 to run');
  });
});

describe('A lesson on simulated nodes', () => {
  it('jobs-and-cronjobs passes every step in the worker: its steps wait for the job-controller, and advanceClock moves the fake clock', async () => {
    await page.getByTestId('tab-scenarios').click();
    await page.getByTestId('scenario-lessons').selectOption('jobs-and-cronjobs');
    await expect.poll(() => page.locator('#scenario-heading').textContent()).toBe('Scenario: jobs-and-cronjobs');
    // Its settings (a fake clock, one simulated node) switch the tab's server over one reload.
    await Promise.all([page.waitForEvent('load'), page.getByTestId('scenario-replay').click()]);
    await workbenchReady(page);
    await expect.poll(() => page.getByTestId('scenario-summary').textContent(), { timeout: 90_000 }).toBe('20 passed, 0 failed, 0 to run');
    expect(await page.getByTestId('scenario-result').nth(12).textContent()).toBe(
      'PASS step 13: the second Pod failed too; two failures pass backoffLimit 1, so the Job is FailureTarget and then Failed: GET /apis/batch/v1/namespaces/lesson-jobs/jobs/fails (waiting up to 30000ms) -> 200',
    );
    expect(await page.getByTestId('scenario-result').nth(0).textContent()).toMatch(/ -> 404 NotFound$/);
    // A replay on the same server passes again: the lesson deletes its last run's Jobs first (200, not 404 now).
    await page.getByTestId('scenario-replay').click();
    await expect.poll(() => page.getByTestId('scenario-result').nth(0).textContent(), { timeout: 30_000 }).toMatch(/ -> 200$/);
    await expect.poll(() => page.getByTestId('scenario-summary').textContent(), { timeout: 90_000 }).toBe('20 passed, 0 failed, 0 to run');
  });
});
