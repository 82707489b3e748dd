/**
 * Feature gates (`--feature-gates`), with kube-apiserver's defaults for the
 * gates kubesim implements. Unknown gate names are an error, as at
 * kube-apiserver start.
 *
 * Lifecycle (k8s.io/component-base/featuregate): alpha gates default off,
 * beta on; a GA or deprecated gate is locked to its default once it no
 * longer has an effect, and setting a locked gate to the other value fails;
 * setting a GA or deprecated gate at all logs a warning.
 */
export const defaultFeatureGates = {
  /** Beta, on by default since 1.16: gzip for large get and list responses. */
  APIResponseCompression: true,
  /** Beta since 1.35, on: a WebSocket (GET) exec, attach or port-forward also needs create on the subresource. */
  AuthorizePodWebsocketUpgradeCreatePermission: true,
  /** Alpha, off by default: DeleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential is honoured. */
  AllowUnsafeMalformedObjectDeletion: false,
  /** Alpha since 1.32, off by default: application/cbor (and cbor-seq watches, apply-patch+cbor) is served. */
  CBORServingAndStorage: false,
  /** GA since 1.32, locked on: /metrics/slis. */
  ComponentSLIs: true,
  /** Beta since 1.36: /statusz. */
  ComponentStatusz: true,
  /** Beta since 1.36: /flagz. */
  ComponentFlagz: true,
  /** GA since 1.35, locked on: pods/resize changes a running pod's cpu and memory. */
  InPlacePodVerticalScaling: true,
  /** Beta since 1.35, on: the PodTopologyLabels admission plugin puts the Node's zone and region labels on a pods/binding, which writes them onto the pod. */
  PodTopologyLabelsAdmission: true,
  /** Beta, off: the simulated kubelets take pod and container stats from the runtime (when it reports them) instead of cAdvisor. */
  PodAndContainerStatsFromCRI: false,
  /** Alpha in 1.36: /metrics in the protobuf exposition carries native histograms. */
  NativeHistograms: false,
  /** Beta, on: declarative validation runs beside the hand-written one and mismatches are counted. */
  DeclarativeValidation: true,
  /** Beta, off: the declarative validation's errors are the ones returned. */
  DeclarativeValidationTakeover: false,
  /** Beta since 1.34, on: --authentication-config issuers may name an egressSelectorType. */
  StructuredAuthenticationConfigurationEgressSelector: true,
} as const;

export type FeatureGate = keyof typeof defaultFeatureGates;
export type FeatureGates = Record<FeatureGate, boolean>;

/** A gate's pre-release stage as kubernetes_feature_enabled labels it ("" for GA). */
export type FeatureStage = 'ALPHA' | 'BETA' | '' | 'DEPRECATED';

export interface FeatureSpec {
  default: boolean;
  stage: FeatureStage;
  /** The gate no longer has an effect: it cannot be set away from its default. */
  lockToDefault?: boolean;
}

/** Stages of gates that are not plain alpha (default off) or beta (default on). */
const gateLifecycle: Partial<Record<FeatureGate, Omit<FeatureSpec, 'default'>>> = {
  ComponentSLIs: { stage: '', lockToDefault: true },
  InPlacePodVerticalScaling: { stage: '', lockToDefault: true },
  DeclarativeValidationTakeover: { stage: 'BETA' },
  PodAndContainerStatsFromCRI: { stage: 'BETA' },
};

export function featureSpec(name: FeatureGate): FeatureSpec {
  const byDefault = defaultFeatureGates[name];
  return { default: byDefault, ...(gateLifecycle[name] ?? { stage: byDefault ? 'BETA' : 'ALPHA' }) };
}

export function featureGates(overrides: Partial<FeatureGates> = {}): FeatureGates {
  return { ...defaultFeatureGates, ...overrides };
}

/**
 * Parses `A=true,B=false` as the flag takes it. Warnings (GA and deprecated
 * gates being set) go to `warn`, as kube-apiserver logs them.
 */
export function parseFeatureGates(
  value: string,
  warn: (message: string) => void = () => {},
  specs: (name: string) => FeatureSpec | undefined = (name) => (name in defaultFeatureGates ? featureSpec(name as FeatureGate) : undefined),
): Partial<FeatureGates> {
  const out: Record<string, boolean> = {};
  for (const part of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [name, v] = part.split('=') as [string, string | undefined];
    const spec = specs(name);
    if (!spec) throw new Error(`unrecognized feature gate: ${name}`);
    if (v !== 'true' && v !== 'false') throw new Error(`invalid value of ${name}=${v ?? ''}, err: strconv.ParseBool: parsing ${JSON.stringify(v ?? '')}: invalid syntax`);
    const enabled = v === 'true';
    if (spec.lockToDefault && enabled !== spec.default) throw new Error(`cannot set feature gate ${name} to ${enabled}, feature is locked to ${spec.default}`);
    if (spec.stage === 'DEPRECATED') warn(`Setting deprecated feature gate ${name}=${enabled}. It will be removed in a future release.`);
    else if (spec.stage === '') warn(`Setting GA feature gate ${name}=${enabled}. It will be removed in a future release.`);
    out[name] = enabled;
  }
  return out as Partial<FeatureGates>;
}
