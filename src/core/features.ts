/**
 * Feature gates (`--feature-gates`), with kube-apiserver's defaults for the
 * gates kubesim implements. Unknown gate names are an error, as at
 * kube-apiserver start.
 */
export const defaultFeatureGates = {
  /** Beta, on by default since 1.16: gzip for large get and list responses. */
  APIResponseCompression: true,
  /** Alpha, off by default: DeleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential is honoured. */
  AllowUnsafeMalformedObjectDeletion: false,
  /** Alpha since 1.32, off by default: application/cbor (and cbor-seq watches, apply-patch+cbor) is served. */
  CBORServingAndStorage: false,
} as const;

export type FeatureGate = keyof typeof defaultFeatureGates;
export type FeatureGates = Record<FeatureGate, boolean>;

export function featureGates(overrides: Partial<FeatureGates> = {}): FeatureGates {
  return { ...defaultFeatureGates, ...overrides };
}

/** Parses `A=true,B=false` as the flag takes it. */
export function parseFeatureGates(value: string): Partial<FeatureGates> {
  const out: Partial<FeatureGates> = {};
  for (const part of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [name, v] = part.split('=') as [string, string | undefined];
    if (!(name in defaultFeatureGates)) throw new Error(`unrecognized feature gate: ${name}`);
    if (v !== 'true' && v !== 'false') throw new Error(`invalid value of ${name}=${v ?? ''}, err: strconv.ParseBool: parsing ${JSON.stringify(v ?? '')}: invalid syntax`);
    out[name as FeatureGate] = v === 'true';
  }
  return out;
}
