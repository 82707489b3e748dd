/**
 * batch/v1 Jobs and CronJobs through HTTP, as tables (object -> expected
 * causes), plus the cron parser's own messages (robfig/cron ParseStandard).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../testing/client';
import { cronScheduleError } from './cron';

let t: TestServer;
beforeAll(async () => {
  t = await newTestServer();
});

type Spec = Record<string, unknown>;
const JOBS = '/apis/batch/v1/namespaces/default/jobs';
const CRONJOBS = '/apis/batch/v1/namespaces/default/cronjobs';
const podTemplate = (spec: Spec = {}) => ({ spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }], ...spec } });
const causesOf = (body: { details?: { causes?: { field: string; message: string }[] } }) => (body.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);

describe('cron schedules (ParseStandard)', () => {
  const cases: [string, string | undefined][] = [
    ['*/5 * * * *', undefined],
    ['0 0 1 jan-mar mon-fri', undefined],
    ['@hourly', undefined],
    ['@every 1h30m', undefined],
    ['not a cron', 'expected exactly 5 fields, found 3: [not a cron]'],
    ['* * * *', 'expected exactly 5 fields, found 4: [* * * *]'],
    ['60 * * * *', 'end of range (60) above maximum (59): 60'],
    ['* * 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['5-1 * * * *', 'beginning of range (5) beyond end of range (1): 5-1'],
    ['x * * * *', 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
    ['@sometimes', 'unrecognized descriptor: @sometimes'],
    ['', 'empty spec string'],
  ];
  for (const [spec, want] of cases) it(`${JSON.stringify(spec)} -> ${want ?? 'valid'}`, () => expect(cronScheduleError(spec)).toBe(want));
});

describe('Job', () => {
  const cases: [string, Spec, string[]][] = [
    ['always', { template: podTemplate({ restartPolicy: 'Always' }) }, ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']],
    ['sometimes', { template: podTemplate({ restartPolicy: 'Sometimes' }) }, [
      'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
      'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "OnFailure", "Never"',
    ]],
    ['counts', { parallelism: -1, completions: -1, backoffLimit: -1, activeDeadlineSeconds: -5, template: podTemplate() }, [
      'spec.parallelism: Invalid value: -1: must be greater than or equal to 0',
      'spec.completions: Invalid value: -1: must be greater than or equal to 0',
      'spec.activeDeadlineSeconds: Invalid value: -5: must be greater than or equal to 0',
      'spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0',
    ]],
    ['mode', { completionMode: 'Sometimes', template: podTemplate() }, [
      'spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"',
    ]],
    ['indexed', { completionMode: 'Indexed', parallelism: 2, completions: undefined, template: podTemplate() }, [
      'spec.completions: Required value: when completion mode is Indexed',
    ]],
    ['selector', { selector: { matchLabels: { a: 'b' } }, template: podTemplate() }, [
      'spec.template.metadata.labels[batch.kubernetes.io/controller-uid]: Required value: must be \'{uid}\'',
    ]],
  ];
  for (const [name, spec, want] of cases) {
    it(`API-ERR-022: Job ${name} is 422 with every cause`, async () => {
      const r = await t.json('POST', JOBS, { body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name }, spec } });
      expect(r.status).toBe(422);
      expect(r.body.details).toMatchObject({ name, group: 'batch', kind: 'Job' });
      const got = causesOf(r.body);
      if (name === 'selector') expect(got.some((c) => c.startsWith('spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"b", "batch.kubernetes.io/controller-uid":'))).toBe(true);
      else expect(got).toEqual(want);
    });
  }

  it('a valid Job gets a generated selector its template matches; the template and selector are then immutable', async () => {
    const c = await t.json('POST', JOBS, { body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'ok' }, spec: { template: podTemplate() } } });
    expect(c.status).toBe(201);
    const uid = c.body.metadata.uid;
    expect(c.body.spec.selector).toEqual({ matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    const r = await t.json('PATCH', `${JOBS}/ok`, { headers: { 'content-type': 'application/merge-patch+json' }, body: { spec: { completions: 3, template: { spec: { containers: [{ name: 'c', image: 'busybox:2' }] } } } } });
    expect(r.status).toBe(422);
    expect(causesOf(r.body)).toEqual([
      'spec.completions: Invalid value: 3: field is immutable',
      'spec.template: Invalid value: core.PodTemplateSpec{...}: field is immutable',
    ]);
    const labels = await t.json('PATCH', `${JOBS}/ok`, { headers: { 'content-type': 'application/merge-patch+json' }, body: { metadata: { labels: { x: 'y' } }, spec: { activeDeadlineSeconds: 100 } } });
    expect(labels.status).toBe(200);
  });
});

describe('CronJob', () => {
  const jobTemplate = (spec: Spec = {}) => ({ spec: { template: podTemplate(), ...spec } });
  const cases: [string, Spec, string[]][] = [
    ['not-a-cron', { schedule: 'not a cron', jobTemplate: jobTemplate() }, ['spec.schedule: Invalid value: "not a cron": expected exactly 5 fields, found 3: [not a cron]']],
    ['no-schedule', { jobTemplate: jobTemplate() }, ['spec.schedule: Required value']],
    ['tz-in-schedule', { schedule: 'TZ=UTC 0 * * * *', jobTemplate: jobTemplate() }, ['spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead']],
    ['bad-zone', { schedule: '0 * * * *', timeZone: 'Mars/Olympus', jobTemplate: jobTemplate() }, ['spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus']],
    ['local-zone', { schedule: '0 * * * *', timeZone: 'Local', jobTemplate: jobTemplate() }, ['spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones']],
    ['policy', { schedule: '0 * * * *', concurrencyPolicy: 'Sometimes', startingDeadlineSeconds: -1, jobTemplate: jobTemplate() }, [
      'spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0',
      'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
    ]],
    ['template', { schedule: '0 * * * *', jobTemplate: { spec: { selector: { matchLabels: { a: 'b' } }, template: { spec: { containers: [{ name: 'c', image: 'x' }] } } } } }, [
      'spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
      'spec.jobTemplate.spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` will be auto-generated',
    ]],
    ['a-name-that-is-much-longer-than-fifty-two-characters-x', { schedule: '0 * * * *', jobTemplate: jobTemplate() }, [
      'metadata.name: Invalid value: "a-name-that-is-much-longer-than-fifty-two-characters-x": must be no more than 52 characters',
    ]],
  ];
  for (const [name, spec, want] of cases) {
    it(`API-ERR-022: CronJob ${name} is 422 with every cause`, async () => {
      const r = await t.json('POST', CRONJOBS, { body: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name }, spec } });
      expect(r.status).toBe(422);
      expect(causesOf(r.body)).toEqual(want);
    });
  }

  it('a valid CronJob with a time zone is created with defaults', async () => {
    const r = await t.json('POST', CRONJOBS, { body: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'ok' }, spec: { schedule: '*/5 * * * *', timeZone: 'Europe/Paris', jobTemplate: jobTemplate() } } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.spec).toMatchObject({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
  });
});
