/** Feature gate lifecycle (--feature-gates) and kubernetes_feature_enabled as /metrics reports it. */
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { defaultFeatureGates, featureSpec, parseFeatureGates, type FeatureGate, type FeatureSpec } from './features';
import { newTestServer } from './testing/client';

async function featureEnabled(overrides: Parameters<typeof newTestServer>[0] = {}): Promise<Map<string, { stage: string; value: string }>> {
  const t = await newTestServer(overrides);
  const text = await (await t.request('GET', '/metrics')).text();
  const family = parsePrometheusTextFormat(text).find((f) => f.name === 'kubernetes_feature_enabled')!;
  return new Map(family.metrics.map((m) => [m.labels!['name']!, { stage: m.labels!['stage']!, value: m.value! }]));
}

describe('feature gates', () => {
  it('[API-VER-046][API-VER-047] alpha gates default off, beta gates default on, as a default server reports them', async () => {
    const gates = await featureEnabled();
    for (const name of Object.keys(defaultFeatureGates) as FeatureGate[]) {
      const { stage } = featureSpec(name);
      expect(gates.get(name)?.stage, name).toBe(stage);
      if (stage === 'ALPHA') expect(gates.get(name)?.value, name).toBe('0');
      if (stage === 'BETA') expect(gates.get(name)?.value, name).toBe(defaultFeatureGates[name] ? '1' : '0');
    }
    expect(gates.get('AllowUnsafeMalformedObjectDeletion')).toEqual({ stage: 'ALPHA', value: '0' });
    expect(gates.get('APIResponseCompression')).toEqual({ stage: 'BETA', value: '1' });
    // [AC-METRICS-025] a beta gate that defaults off.
    expect(gates.get('PodAndContainerStatsFromCRI')).toEqual({ stage: 'BETA', value: '0' });
  });

  it('[API-VER-047] a beta gate can be disabled; [AC-METRICS-024] NativeHistograms reports 1 when turned on', async () => {
    expect(parseFeatureGates('APIResponseCompression=false')).toEqual({ APIResponseCompression: false });
    const gates = await featureEnabled({ featureGates: { APIResponseCompression: false, NativeHistograms: true } });
    expect(gates.get('APIResponseCompression')).toEqual({ stage: 'BETA', value: '0' });
    expect(gates.get('NativeHistograms')).toEqual({ stage: 'ALPHA', value: '1' });
  });

  it('[API-VER-048][API-VER-050][AC-METRICS-003] a GA gate is locked on: setting it true warns, setting it false fails', async () => {
    const warnings: string[] = [];
    expect(parseFeatureGates('ComponentSLIs=true', (w) => warnings.push(w))).toEqual({ ComponentSLIs: true });
    expect(warnings).toEqual(['Setting GA feature gate ComponentSLIs=true. It will be removed in a future release.']);
    expect(() => parseFeatureGates('ComponentSLIs=false')).toThrow('cannot set feature gate ComponentSLIs to false, feature is locked to true');
    expect((await featureEnabled()).get('ComponentSLIs')).toEqual({ stage: '', value: '1' });
    const t = await newTestServer();
    expect((await t.request('GET', '/metrics/slis')).status).toBe(200);
  });

  it('[API-VER-044] setting a deprecated gate warns; a deprecated gate locked off cannot be turned on', () => {
    const specs: Record<string, FeatureSpec> = {
      OldBehaviour: { default: false, stage: 'DEPRECATED' },
      GoneBehaviour: { default: false, stage: 'DEPRECATED', lockToDefault: true },
    };
    const warnings: string[] = [];
    expect(parseFeatureGates('OldBehaviour=true', (w) => warnings.push(w), (n) => specs[n])).toEqual({ OldBehaviour: true });
    expect(warnings).toEqual(['Setting deprecated feature gate OldBehaviour=true. It will be removed in a future release.']);
    expect(() => parseFeatureGates('GoneBehaviour=true', () => {}, (n) => specs[n])).toThrow('cannot set feature gate GoneBehaviour to true, feature is locked to false');
  });

  it('[API-DV-003][API-DV-005] DeclarativeValidation defaults on, DeclarativeValidationTakeover off', async () => {
    const gates = await featureEnabled();
    expect(gates.get('DeclarativeValidation')).toEqual({ stage: 'BETA', value: '1' });
    expect(gates.get('DeclarativeValidationTakeover')).toEqual({ stage: 'BETA', value: '0' });
  });

  it('unknown gates and non-boolean values are refused', () => {
    expect(() => parseFeatureGates('Nope=true')).toThrow('unrecognized feature gate: Nope');
    expect(() => parseFeatureGates('NativeHistograms=yes')).toThrow('invalid value of NativeHistograms=yes');
  });
});
